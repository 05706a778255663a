import { findBankPda } from "@cistern/sdk";
import type { Address, KeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildSignSend,
  fundedWallet,
  post,
  startTxWorld,
  type TxWorld,
  USDC_MINT,
} from "./support/tx-world.ts";

const DAY = 86_400;

// A builder picks the pool on the API's cached snapshot of pools and banks. Right after the user's own write (a
// repay, a deposit) that snapshot can be older than the chain; a pick it refuses is made again on pools and banks
// read now, so the build follows the chain instead of refusing on the stale copy.
describe("builders after a write: the cached snapshot never refuses what the chain allows", () => {
  let w: TxWorld;
  let lender: KeyPairSigner;
  let borrower: KeyPairSigner;
  let nft: { mint: string; collectionId: string };
  let bank: Address;

  beforeAll(async () => {
    // a snapshot that stays fresh for a minute: every quote below reads the copy taken at the first one
    w = await startTxWorld({ env: { TX_SNAPSHOT_TTL_MS: "60000" } });
    lender = (await fundedWallet(w.net)).signer;
    const b = await fundedWallet(w.net);
    borrower = b.signer;
    nft = b.given.nfts[0]!;
    [bank] = await findBankPda(w.programId, lender.address, USDC_MINT);
    const created = await buildSignSend(
      w.app,
      "/nft/create-pool",
      {
        bank,
        owner: lender.address,
        amount: "5000000",
        mint: USDC_MINT,
        seed: "1",
        param: {
          apr: 2000,
          limits: { minDuration: DAY, maxDuration: 30 * DAY, maxAmountUsd: 100_000, minAmountUsd: 1 },
          collections: [{ collection: nft.collectionId, collectionLtv: 5000, exposure: 10000 }],
        },
      },
      [lender],
    );
    expect(created.sent.error).toBeUndefined();
    w.tx.state.invalidate();
  }, 180_000);
  afterAll(async () => {
    await w?.close();
  });

  it("a deposit that lands after the snapshot was taken: the take-loan build lends from it at once", async () => {
    const ask = { borrower: borrower.address, nftMint: nft.mint, duration: 7 * DAY, amount: "20000000" };
    // the snapshot (5 USDC in the bank) refuses 20 USDC
    const refused = await post(w.app, "/nft/quote", ask);
    expect(refused.status).toBe(422);
    const deposit = await buildSignSend(
      w.app,
      "/bank/deposit",
      { owner: lender.address, mint: USDC_MINT, amount: "100000000" },
      [lender],
    );
    expect(deposit.sent.error).toBeUndefined();
    // the build, within the snapshot's minute, decides on the chain: 105 USDC available, the loan lands
    const { built, sent } = await buildSignSend(w.app, "/nft/take-loan", ask, [borrower]);
    expect(sent.error).toBeUndefined();
    const [loan] = await w.tx.state.getLoans([built.metadata.loan as Address]);
    expect(loan).toMatchObject({ status: "Ongoing", principal: 20_000_000n, borrower: borrower.address });
  }, 120_000);

  it("a build the chain refuses too says why with the chain's numbers (85 USDC left), not the stale copy's", async () => {
    const other = await fundedWallet(w.net);
    const otherNft = other.given.nfts.find((n) => n.collectionId === nft.collectionId)!;
    const r = await post(w.app, "/nft/take-loan", {
      borrower: other.signer.address,
      nftMint: otherNft.mint,
      duration: 7 * DAY,
      amount: "900000000",
    });
    expect(r.status).toBe(422);
    const maxAmount = BigInt((r.body as { params: { maxAmount: string } }).params.maxAmount);
    expect(maxAmount > 5_000_000n && maxAmount <= 85_000_000n).toBe(true);
  }, 60_000);
});
