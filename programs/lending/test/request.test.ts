/**
 * Loan requests (20 PostRequest, 21 CancelRequest, 22 FillRequest): the collateral is escrowed when posted, a
 * lender fills the stated terms in one instruction and the loan then ends like any loan; refused: a fill of a
 * cancelled or filled request, below the stated terms, by the borrower themself, from someone else's pool.
 */
import { fileURLToPath } from "node:url";
import {
  computeOwedInterest,
  computeProtocolFee,
  computeTotalInterest,
  PROGRAM_ERROR_CODE as P,
} from "@cistern/protocol";
import {
  cancelRequest,
  createBank,
  createLendingWorld,
  createMint,
  createPool,
  createWallet,
  extendLoan,
  fillRequest,
  getNow,
  getTokenBalance,
  type LendingWorld,
  liquidate,
  mintNft,
  mintTo,
  postRequest,
  readBank,
  readLoan,
  readPool,
  readRequest,
  repay,
  setUnixTime,
  tokenAccountOf,
  type Wallet,
  type WorldPool,
} from "@cistern/sdk/testing";
import type { Address } from "@solana/kit";
import { generateKeyPairSigner } from "@solana/kit";
import { beforeEach, describe, expect, it } from "vitest";
import { failureCode } from "./support/sale-world.ts";

const SO = fileURLToPath(new URL("../build/lending.so", import.meta.url));
const DAY = 86_400n;
const PRINCIPAL = 250_000_000n;

describe("Loan requests (LiteSVM)", () => {
  let w: LendingWorld;
  let borrower: Wallet;
  let nft: Address;
  let nftPool: WorldPool; // the lender's nft-pool: it does not list the NFT's collection
  let request: Address;
  const post = (overrides: Partial<Parameters<typeof postRequest>[1]> = {}) =>
    postRequest(w, {
      borrower,
      collateralMint: nft,
      isDefi: false,
      collateralAmountBaseUnits: 1n,
      principalBaseUnits: PRINCIPAL,
      durationSeconds: 7n * DAY,
      maxAprBps: 3000,
      ...overrides,
    });

  beforeEach(async () => {
    w = await createLendingWorld({ soPath: SO, depositBaseUnits: 1_000_000_000n });
    borrower = await createWallet(w.svm, w.admin, [w.currencyMint]);
    const collection = (await generateKeyPairSigner()).address;
    nft = await mintNft(w, borrower, collection);
    const other = (await generateKeyPairSigner()).address;
    nftPool = await createPool(w, { poolType: "nft-pool", collectionIds: [other], loanAprBps: 5000 });
    request = await post();
  });

  it("escrows the collateral when posted and records the terms", async () => {
    const rq = readRequest(w, request);
    expect([rq.status, rq.borrower, rq.principal, rq.durationSeconds, rq.maxAprBps]).toEqual([
      "Open",
      borrower.signer.address,
      PRINCIPAL,
      7n * DAY,
      3000,
    ]);
    expect(getTokenBalance(w.svm, rq.escrow)).toBe(1n);
    expect(getTokenBalance(w.svm, await tokenAccountOf(w, borrower, nft))).toBe(0n);
  });

  it("a lender fills it: principal to the borrower, collateral into the loan escrow, a RequestLoan that repays like any loan", async () => {
    const currency = await tokenAccountOf(w, borrower, w.currencyMint);
    const bankBefore = readBank(w);
    const loan = await fillRequest(w, { pool: nftPool, request, borrower, terms: { aprBps: 2500 } });
    const l = readLoan(w, loan);
    expect([l.kind, l.status, l.borrower, l.pool, l.principal, l.aprBps]).toEqual([
      "RequestLoan",
      "Ongoing",
      borrower.signer.address,
      nftPool.address,
      PRINCIPAL,
      2500,
    ]);
    expect(l.interest).toBe(
      computeTotalInterest({ aprBps: 2500, principal: PRINCIPAL, durationSeconds: 7n * DAY }),
    );
    expect(getTokenBalance(w.svm, currency)).toBe(PRINCIPAL);
    expect(getTokenBalance(w.svm, l.escrow)).toBe(1n);
    const rq = readRequest(w, request);
    expect([rq.status, rq.loan]).toEqual(["Filled", loan]);
    expect(w.svm.getAccount(rq.escrow)?.exists ?? false).toBe(false); // closed
    expect(readBank(w).availableLiquidity).toBe(bankBefore.availableLiquidity - PRINCIPAL);
    const pool = readPool(w, nftPool.address);
    expect([pool.currentLoans, pool.totalLoans, pool.borrowedAmount]).toEqual([1n, 1n, PRINCIPAL]);
    expect(pool.collections[0]!.ongoingLoans).toBe(0n); // no entry counts a filled request

    // repay two days later: owed interest at the fill's APR, the NFT comes back, every counter returns
    setUnixTime(w, getNow(w).unix + 2n * DAY);
    const owed = computeOwedInterest({
      aprBps: 2500,
      principal: PRINCIPAL,
      durationSeconds: 7n * DAY,
      createdAt: l.createdAt,
      now: getNow(w).unix,
    });
    await mintTo(w.svm, w.admin, w.currencyMint, currency, owed);
    await repay(w, borrower, loan);
    expect(getTokenBalance(w.svm, await tokenAccountOf(w, borrower, nft))).toBe(1n);
    expect(readBank(w).availableLiquidity).toBe(
      bankBefore.availableLiquidity + owed - computeProtocolFee(owed),
    );
    const after = readPool(w, nftPool.address);
    expect([after.currentLoans, after.borrowedAmount]).toEqual([0n, 0n]);
  });

  it("a filled request unpaid past grace is liquidated to the lender", async () => {
    const loan = await fillRequest(w, { pool: nftPool, request, borrower });
    setUnixTime(w, readLoan(w, loan).expiredAt + 8n * 3600n + 1n);
    await liquidate(w, w.admin, loan);
    expect(readLoan(w, loan).status).toBe("Liquidated");
    expect(getTokenBalance(w.svm, await tokenAccountOf(w, w.lender, nft))).toBe(1n);
    expect(readPool(w, nftPool.address).currentLoans).toBe(0n);
  });

  it("extending a filled request goes through the pool's own terms (its collections)", async () => {
    const loan = await fillRequest(w, { pool: nftPool, request, borrower });
    const code = await failureCode(
      extendLoan(w, {
        pool: nftPool,
        borrower,
        oldLoan: loan,
        principalBaseUnits: PRINCIPAL,
        durationSeconds: 7n * DAY,
        collateralValueBaseUnits: 1_000_000_000n,
      }),
    );
    expect(code).toBe(P.CollectionNotInPool);
    expect(readLoan(w, loan).status).toBe("Ongoing");
  });

  it("the borrower cancels an open request and gets the NFT back; a cancelled request cannot be filled", async () => {
    const stranger = await createWallet(w.svm, w.admin, [w.currencyMint]);
    expect(await failureCode(cancelRequest(w, stranger, request))).toBe(P.Unauthorized);
    await cancelRequest(w, borrower, request);
    expect(readRequest(w, request).status).toBe("Cancelled");
    expect(getTokenBalance(w.svm, await tokenAccountOf(w, borrower, nft))).toBe(1n);
    const vault = getTokenBalance(w.svm, w.vault);
    expect(await failureCode(fillRequest(w, { pool: nftPool, request, borrower }))).toBe(P.RequestNotOpen);
    expect(await failureCode(cancelRequest(w, borrower, request))).toBe(P.RequestNotOpen);
    expect(getTokenBalance(w.svm, w.vault)).toBe(vault);
  });

  it("refuses a double fill, a fill below the stated terms, a self-fill and a fill from a pool of another kind or owner", async () => {
    const vault = getTokenBalance(w.svm, w.vault);
    const terms = async (t: NonNullable<Parameters<typeof fillRequest>[1]["terms"]>) =>
      failureCode(fillRequest(w, { pool: nftPool, request, borrower, terms: t }));
    expect(await terms({ principalBaseUnits: PRINCIPAL - 1n })).toBe(P.RequestTermsMismatch);
    expect(await terms({ durationSeconds: 6n * DAY })).toBe(P.RequestTermsMismatch);
    expect(await terms({ aprBps: 3001 })).toBe(P.RequestTermsMismatch);
    expect(await terms({ aprBps: 0 })).toBe(P.RequestTermsMismatch);
    // the borrower opens a bank and a pool of their own and tries to fill their own request
    const own = await createBank(w, {
      currencyMint: w.currencyMint,
      owner: borrower,
      depositBaseUnits: 500_000_000n,
    });
    const ownPool = await createPool(w, {
      poolType: "nft-pool",
      collectionIds: [nft],
      loanAprBps: 100,
      bank: own,
    });
    expect(await failureCode(fillRequest(w, { pool: ownPool, request, borrower }))).toBe(P.SelfFill);
    // someone else signing for the lender's pool
    const stranger = await createWallet(w.svm, w.admin, [w.currencyMint]);
    expect(await failureCode(fillRequest(w, { pool: nftPool, request, borrower, lender: stranger }))).toBe(
      P.Unauthorized,
    );
    // a defi-pool cannot hold an NFT request
    const defi = await createPool(w, { poolType: "defi-pool", collectionIds: [nft], loanAprBps: 100 });
    expect(await failureCode(fillRequest(w, { pool: defi, request, borrower }))).toBe(P.AccountMismatch);
    expect(getTokenBalance(w.svm, w.vault)).toBe(vault);
    expect(readRequest(w, request).status).toBe("Open");
    // the real fill, then a second one
    await fillRequest(w, { pool: nftPool, request, borrower });
    expect(await failureCode(fillRequest(w, { pool: nftPool, request, borrower }))).toBe(P.RequestNotOpen);
  });

  it("refuses a fill larger than the bank's available liquidity", async () => {
    const big = await post({
      collateralMint: await mintNft(w, borrower, nft),
      principalBaseUnits: 2_000_000_000n,
    });
    expect(await failureCode(fillRequest(w, { pool: nftPool, request: big, borrower }))).toBe(
      P.InsufficientLiquidity,
    );
  });

  it("refuses to post an NFT without a verified collection, a zero amount, a duration under a day or an APR of 0", async () => {
    const bare = await mintNft(w, borrower, null);
    expect(await failureCode(post({ collateralMint: bare }))).toBe(P.InvalidMetadata);
    const good = await mintNft(w, borrower, nft);
    await expect(post({ collateralMint: good, principalBaseUnits: 0n })).rejects.toThrow("principal");
    expect(await failureCode(post({ collateralMint: good, durationSeconds: DAY - 1n }))).toBe(
      P.InvalidDuration,
    );
    expect(await failureCode(post({ collateralMint: good, maxAprBps: 0 }))).toBe(P.InvalidAmount);
    expect(getTokenBalance(w.svm, await tokenAccountOf(w, borrower, good))).toBe(1n);
  });

  it("posts and fills a token request from a defi-pool", async () => {
    const mint = await createMint(w.svm, w.admin, 9);
    await mintTo(w.svm, w.admin, mint, await tokenAccountOf(w, borrower, mint), 5_000_000_000n);
    const defi = await createPool(w, { poolType: "defi-pool", collectionIds: [mint], loanAprBps: 1200 });
    const rq = await post({ collateralMint: mint, isDefi: true, collateralAmountBaseUnits: 4_000_000_000n });
    const loan = await fillRequest(w, { pool: defi, request: rq, borrower, terms: { aprBps: 1000 } });
    const l = readLoan(w, loan);
    expect([l.kind, l.isDefi, l.collateralAmount, l.aprBps]).toEqual([
      "RequestLoan",
      true,
      4_000_000_000n,
      1000,
    ]);
    expect(getTokenBalance(w.svm, await tokenAccountOf(w, borrower, mint))).toBe(1_000_000_000n);
  });
});
