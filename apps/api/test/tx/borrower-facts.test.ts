import type { Address, KeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadTxValuation } from "../../src/tx/calculator/valuation.ts";
import { computeBorrowerFacts } from "../../src/tx/oracle/borrower-facts.ts";
import {
  buildSignSend,
  createUsdcJtoPool,
  DAY_SECONDS,
  fundedWallet,
  JTO_MINT,
  startTxWorld,
  type TxWorld,
  USDC_MINT,
} from "./support/tx-world.ts";

describe("borrower facts from real chain data: no self-lending, no extend farming", () => {
  let w: TxWorld;
  let lender: KeyPairSigner;
  let borrower: KeyPairSigner;
  let lenderPool: Address;
  let ownPool: Address;

  beforeAll(async () => {
    w = await startTxWorld();
    lender = (await fundedWallet(w.net)).signer;
    borrower = (await fundedWallet(w.net)).signer;
    lenderPool = await createUsdcJtoPool(w, lender, 1, "1000000000");
    ownPool = await createUsdcJtoPool(w, borrower, 2, "200000000");
    w.tx.state.invalidate();
  }, 180_000);
  afterAll(async () => {
    await w?.close();
  });

  it("borrower facts count only repaid loans from other lenders' pools, not closed by Extend", async () => {
    const take = async (pool: Address) => {
      const r = await buildSignSend(
        w.app,
        "/defi/take-loan",
        {
          borrower: borrower.address,
          collateralMint: JTO_MINT,
          collateralAmount: "20000000000",
          duration: 2 * DAY_SECONDS,
          amount: "10000000",
          pool,
        },
        [borrower],
      );
      expect(r.sent.error, JSON.stringify(r.sent.error)).toBeUndefined();
      return r.built.metadata.loan as Address;
    };
    const repay = async (loan: Address) => {
      const r = await buildSignSend(
        w.app,
        "/defi/repay-loan",
        { borrower: borrower.address, loans: [loan] },
        [borrower],
      );
      expect(r.sent.error, JSON.stringify(r.sent.error)).toBeUndefined();
    };
    // 1: a loan from the lender's pool, repaid: counts.
    await repay(await take(lenderPool));
    // 2: a loan from the borrower's own pool and bank, repaid: does not count.
    const own = await take(ownPool);
    await repay(own);
    // 3: a loan from the lender's pool, extended (the old loan is Repaid with extendedTo), then repaid.
    const first = await take(lenderPool);
    const ext = await buildSignSend(
      w.app,
      "/defi/extend-loan",
      { borrower: borrower.address, loan: first, duration: 3 * DAY_SECONDS, amount: "10000000" },
      [borrower],
    );
    expect(ext.sent.error, JSON.stringify(ext.sent.error)).toBeUndefined();
    const second = ext.built.metadata.loan as Address;
    await repay(second);
    const loans = await w.tx.state.getLoans([own, first, second]);
    expect(loans.map((l) => l?.status)).toEqual(["Repaid", "Repaid", "Repaid"]);
    expect(loans[0]?.pool).toBe(ownPool);
    expect(loans[1]?.extendedTo).toBe(second);
    // Four Repaid loans on chain; two count.
    const all = await w.tx.state.getBorrowerLoans(borrower.address);
    expect(all.filter(({ loan }) => loan.status === "Repaid").length).toBe(4);
    const valuation = await loadTxValuation(w.tx.app);
    const facts = await computeBorrowerFacts(w.tx, borrower.address, valuation);
    expect(facts.pastLoans).toBe(2n);
    expect(facts.volumeMicroUsd).toBe(2n * valuation.usdMicro(10_000_000n, USDC_MINT)!);
    expect(facts.walletAgeSeconds).toBeGreaterThanOrEqual(0n);
  }, 180_000);
});
