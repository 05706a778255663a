import { generateKeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { post, startTxWorld, type TxWorld, USDC_MINT } from "./support/tx-world.ts";

/** Base58 of an address's length that does not decode to 32 bytes (address() throws on it). */
const BAD = ["z".repeat(44), "1".repeat(44)];
const DAY = 86_400;

describe("write-path routes refuse base58 strings that are not 32-byte addresses with a 400", () => {
  let w: TxWorld;
  beforeAll(async () => {
    w = await startTxWorld();
  }, 120_000);
  afterAll(async () => {
    await w?.close();
  });

  it("answers 400 naming the field on builder, quote and sender routes; nothing is issued", async () => {
    const good = (await generateKeyPairSigner()).address;
    const issued = await w.tx.issued.count();
    for (const bad of BAD) {
      const cases: [string, Record<string, unknown>, RegExp][] = [
        ["/nft/take-loan", { borrower: bad, nftMint: good, duration: DAY }, /body.borrower/],
        ["/nft/take-loan", { borrower: good, nftMint: bad, duration: DAY }, /body.nftMint/],
        [
          "/defi/take-loan",
          { borrower: good, collateralMint: bad, collateralAmount: "1", duration: DAY },
          /body.collateralMint/,
        ],
        ["/nft/repay-loan", { borrower: good, loans: [bad] }, /body.loans.0/],
        ["/defi/extend-loan", { borrower: good, loan: bad, duration: DAY }, /body.loan/],
        ["/nft/quote", { collection: bad, duration: DAY }, /body.collection/],
        ["/bank/deposit", { owner: bad, mint: USDC_MINT, amount: "1" }, /body.owner/],
      ];
      for (const [url, payload, field] of cases) {
        const r = await post(w.app, url, payload);
        expect(r.status, `${url} ${JSON.stringify(payload)} -> ${JSON.stringify(r.body)}`).toBe(400);
        expect(String(r.body.message)).toMatch(/is not a valid address \(base58 of 32 bytes\)/);
        expect(String(r.body.message)).toMatch(field);
      }
    }
    expect(await w.tx.issued.count()).toBe(issued);
  }, 60_000);
});
