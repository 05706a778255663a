import { decodeLoanAccount } from "@cistern/sdk";
import type { Address, KeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildSignSend,
  createUsdcJtoPool,
  fundedWallet,
  JTO_MINT,
  post,
  startTxWorld,
  type TxWorld,
} from "./support/tx-world.ts";

const DAY = 86_400;

describe("refinancing a loan to a cheaper pool, on localnet", () => {
  let w: TxWorld;
  let borrower: KeyPairSigner;
  let loan: Address;
  let cheap: Address;
  const readLoan = async (address: Address) => {
    const [account] = await w.tx.state.getAccounts([address]);
    return decodeLoanAccount(account!.data);
  };

  beforeAll(async () => {
    w = await startTxWorld();
    const dearLender = (await fundedWallet(w.net)).signer;
    await createUsdcJtoPool(w, dearLender, 1, "1000000000", 3000); // 30% APR
    borrower = (await fundedWallet(w.net)).signer;
    w.tx.state.invalidate();
    const taken = await buildSignSend(
      w.app,
      "/defi/take-loan",
      {
        borrower: borrower.address,
        collateralMint: JTO_MINT,
        collateralAmount: "100000000000",
        duration: 14 * DAY,
        amount: "50000000",
      },
      [borrower],
    );
    expect(taken.sent.error).toBeUndefined();
    loan = taken.built.metadata.loan as Address;
    const cheapLender = (await fundedWallet(w.net)).signer;
    cheap = await createUsdcJtoPool(w, cheapLender, 2, "1000000000", 800); // 8% APR
    w.tx.state.invalidate();
  }, 180_000);
  afterAll(async () => {
    await w?.close();
  });

  it("says a cheaper offer exists and how much moving saves", async () => {
    const r = await w.app.inject({ url: `/loan/refinance-offer?loan=${loan}` });
    expect(r.statusCode, r.body).toBe(200);
    const offer = r.json();
    expect(offer).toMatchObject({ loan, pool: cheap, apr: 800, duration: 14 * DAY });
    expect(BigInt(offer.saving)).toBeGreaterThan(0n);
    expect(BigInt(offer.keepInterest) - BigInt(offer.owedNow) - BigInt(offer.newInterest)).toBe(
      BigInt(offer.saving),
    );
  });

  it("moves the loan in one co-signed transaction: the old loan is repaid, the new one runs on the cheaper pool", async () => {
    const r = await buildSignSend(w.app, "/defi/refinance-loan", { borrower: borrower.address, loan }, [
      borrower,
    ]);
    expect(r.sent.error).toBeUndefined();
    expect(r.built.kind).toBe("NormalCoSigned");
    const old = await readLoan(loan);
    expect(old.status).toBe("Repaid");
    const moved = await readLoan(r.built.metadata.loan as Address);
    expect([moved.status, moved.pool, moved.aprBps, moved.principal]).toEqual([
      "Ongoing",
      cheap,
      800,
      50_000_000n,
    ]);
    expect(old.extendedTo).toBe(r.built.metadata.loan);
  });

  it("refuses another wallet's loan, the loan's own pool, and a loan that is no longer ongoing", async () => {
    const stranger = (await fundedWallet(w.net)).signer;
    const other = await post(w.app, "/defi/refinance-loan", { borrower: stranger.address, loan });
    expect(other.status).toBeGreaterThanOrEqual(400);
    expect(other.status).toBeLessThan(500);
    const closed = await post(w.app, "/defi/refinance-loan", { borrower: borrower.address, loan });
    expect(closed.status).toBe(422);
    expect(closed.body).toMatchObject({
      code: 6033,
      name: "LoanNotOngoing",
      params: { status: "Refinanced", viewer: "borrower", collateral: "tokens" },
    });
    expect((await w.app.inject({ url: `/loan/refinance-offer?loan=${loan}` })).json()).toBeNull();
  });
});
