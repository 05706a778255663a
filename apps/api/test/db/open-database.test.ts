import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readBigInt } from "../../src/db/database.ts";
import { openDatabase } from "../../src/db/open-database.ts";

describe("embedded database in the data directory", () => {
  it("migrates on open, keeps data across restarts and does not re-apply migrations", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "cistern-api-pglite-"));
    try {
      const first = await openDatabase({ dataDir, databaseUrl: undefined });
      await first.query(
        `INSERT INTO collections (collection_id, name, symbol, image, banner, url, floor_price, floor_currency, supply,
           created_at, updated_at) VALUES ('c', 'n', 's', '', '', '', $1, 'm', 1, 1, 1)`,
        [18_446_744_073_709_551_615n],
      );
      const applied = await first.query<{ n: unknown }>("SELECT count(*) AS n FROM schema_migrations");
      await first.close();
      const second = await openDatabase({ dataDir, databaseUrl: undefined });
      const [row] = await second.query<{ floor_price: unknown }>("SELECT floor_price FROM collections");
      expect(readBigInt(row?.floor_price)).toBe(18_446_744_073_709_551_615n);
      const again = await second.query<{ n: unknown }>("SELECT count(*) AS n FROM schema_migrations");
      expect(Number(again[0]?.n)).toBe(Number(applied[0]?.n));
      await second.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
