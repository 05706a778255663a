import { appendFileSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AppendLog, readLogLines } from "../src/append-log.ts";
import { tempDataDir } from "./helpers.ts";

describe("append-only ledger", () => {
  it("group-commits lines and reads them back in order", async () => {
    const dir = tempDataDir();
    try {
      const path = join(dir, "ledger.log");
      const log = new AppendLog(path);
      const acks: number[] = [];
      await Promise.all(
        Array.from(
          { length: 500 },
          (_, i) =>
            new Promise<void>((resolve, reject) =>
              log.append(JSON.stringify({ i }), (e) => {
                if (e) return reject(e);
                acks.push(i);
                resolve();
              }),
            ),
        ),
      );
      await log.close();
      expect(acks).toEqual(Array.from({ length: 500 }, (_, i) => i));
      expect(readLogLines<{ i: number }>(path).map((x) => x.i)).toEqual(acks);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("cuts a torn final line and keeps every complete one, across 1 MiB chunk borders", () => {
    const dir = tempDataDir();
    try {
      const path = join(dir, "ledger.log");
      const big = "x".repeat(700_000);
      appendFileSync(path, `${JSON.stringify({ a: 1, big })}\n${JSON.stringify({ a: 2, big })}\n{"a":3,"tor`);
      const lines = readLogLines<{ a: number }>(path);
      expect(lines.map((l) => l.a)).toEqual([1, 2]);
      expect(readFileSync(path, "utf8").endsWith("}\n")).toBe(true);
      appendFileSync(path, `${JSON.stringify({ a: 4 })}\n`);
      expect(readLogLines<{ a: number }>(path).map((l) => l.a)).toEqual([1, 2, 4]);
      expect(readLogLines(join(dir, "missing.log"))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
