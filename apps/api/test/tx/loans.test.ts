import { DEMO_WORLD } from "@cistern/localnet";
import { computeProtocolFee, computeTotalInterest, JITO_TIP_ACCOUNTS } from "@cistern/protocol";
import { findBankPda, findPoolPda } from "@cistern/sdk";
import {
  type Address,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type KeyPairSigner,
  partiallySignTransaction,
} from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findAssociatedTokenAddress } from "../../src/tx/builder/wire-instructions.ts";
import {
  type Built,
  buildSignSend,
  createWorldIndexer,
  fundedWallet,
  post,
  SOL_MINT,
  signAll,
  startTxWorld,
  type TxWorld,
  USDC_MINT,
} from "./support/tx-world.ts";

const JTO = DEMO_WORLD.tokens.find((t) => t.symbol === "JTO")!.mint as Address;
const DAY = 86_400;
const limits = { minDuration: DAY, maxDuration: 30 * DAY, maxAmountUsd: 100_000, minAmountUsd: 1 };

async function tokenBalance(w: TxWorld, owner: Address, mint: Address): Promise<bigint> {
  const ata = await findAssociatedTokenAddress(owner, mint);
  const [account] = await w.tx.state.getAccounts([ata]);
  return account ? Buffer.from(account.data).readBigUInt64LE(64) : 0n;
}

describe("loans: quotes, take (nft, defi), extend, repay (one, many, bundle) on localnet", () => {
  let w: TxWorld;
  let lender: KeyPairSigner;
  let borrower: KeyPairSigner;
  let nfts: { mint: string; collectionId: string }[];
  let collection: Address;
  let cheapPool: Address;
  let dearPool: Address;
  let defiPool: Address;
  let referrer: KeyPairSigner;

  beforeAll(async () => {
    w = await startTxWorld();
    referrer = await generateKeyPairSigner();
    lender = (await fundedWallet(w.net)).signer;
    const b = await fundedWallet(w.net);
    borrower = b.signer;
    nfts = b.given.nfts;
    collection = nfts[0]!.collectionId as Address;
    const [bank] = await findBankPda(w.programId, lender.address, USDC_MINT);
    const create = async (seed: number, apr: number, kind: "nft" | "defi", amount: string) => {
      const param =
        kind === "nft"
          ? {
              apr,
              limits,
              collections: [...new Set(nfts.map((n) => n.collectionId))].map((id) => ({
                collection: id,
                collectionLtv: 5000,
                exposure: 10000,
              })),
            }
          : { apr, limits, currencies: [{ currency: JTO, currencyLtv: 6000, exposure: 10000 }] };
      const r = await buildSignSend(
        w.app,
        `/${kind}/create-pool`,
        { bank, owner: lender.address, amount, mint: USDC_MINT, seed: String(seed), param },
        [lender],
      );
      if (r.sent.result === null) throw new Error(JSON.stringify(r.sent));
      return (await findPoolPda(w.programId, lender.address, BigInt(seed)))[0];
    };
    dearPool = await create(1, 3000, "nft", "3000000000");
    cheapPool = await create(2, 1500, "nft", "0");
    defiPool = await create(3, 2000, "defi", "0");
    w.tx.state.invalidate();
  }, 180_000);
  afterAll(async () => {
    await w?.close();
  });

  it("quotes the cheapest pool that can lend, with the spec's quote fields", async () => {
    const r = await post(w.app, "/nft/quote", {
      collection,
      duration: 7 * DAY,
      amount: "100000000",
      borrower: borrower.address,
    });
    expect(r.status).toBe(200);
    const interest = computeTotalInterest({
      aprBps: 1500,
      principal: 100_000_000n,
      durationSeconds: 7 * DAY,
    });
    expect(r.body).toMatchObject({
      pool: cheapPool,
      amount: "100000000",
      duration: 7 * DAY,
      apr: 1500,
      interest: interest.toString(),
      cisternFees: computeProtocolFee(interest).toString(),
      requiredRepayment: (100_000_000n + interest).toString(),
      netBorrowAmount: "100000000",
      currency: USDC_MINT,
      authorization: w.tx.oracle.address,
      poolData: { totalLiquidity: "3000000000", currency: USDC_MINT },
    });
    // Prices drift a little around the seeded ones (local price source).
    expect(r.body.amountInUsd).toBeGreaterThan(95);
    expect(r.body.amountInUsd).toBeLessThan(105);
    // Floor 12.5 SOL at ~150 USD, LTV 50% -> about 937 USDC.
    expect(Number(r.body.maxBorrowAmount)).toBeGreaterThan(900_000_000);
    expect(Number(r.body.maxBorrowAmount)).toBeLessThan(975_000_000);
    const byMint = await post(w.app, "/nft/quote", { nftMint: nfts[0]!.mint, duration: DAY, pool: dearPool });
    expect(byMint.body).toMatchObject({ pool: dearPool, apr: 3000, amount: byMint.body.maxBorrowAmount });
    const defi = await post(w.app, "/defi/quote", {
      collateralMint: JTO,
      collateralAmount: "20000000000",
      duration: DAY,
    });
    expect(defi.body).toMatchObject({ pool: defiPool, apr: 2000 });
    // 20 JTO at ~2.5 USD = ~50 USDC of collateral, 60% LTV -> ~30 USDC.
    expect(Number(defi.body.maxBorrowAmount)).toBeGreaterThan(28_000_000);
    expect(Number(defi.body.maxBorrowAmount)).toBeLessThan(32_000_000);
    const multi = await post(w.app, "/defi/multi-quote", {
      currencyIn: JTO,
      amountIn: "20000000000",
      tag: "x",
    });
    expect((multi.body.quotes as unknown[]).length).toBe(1);
    const tooMuch = await post(w.app, "/nft/quote", { collection, duration: DAY, amount: "5000000000" });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.message).toMatch(/No pool can lend/);
    const tooLong = await post(w.app, "/nft/quote", { collection, duration: 60 * DAY });
    expect(tooLong.status).toBe(422);
    const decimals = await post(w.app, "/nft/quote", { collection, duration: DAY, amount: "1.5" });
    expect(decimals.status).toBe(400);
    expect(decimals.body.message).toMatch(/too many decimals/);
  }, 60_000);

  it("serves the calculator's configuration routes", async () => {
    const cols = (await w.app.inject({ method: "GET", url: "/nft/collection-config" })).json() as {
      id: string;
      pools: number;
      maxLtv: number;
      bestApr: number;
    }[];
    expect(cols.find((c) => c.id === collection)).toMatchObject({ pools: 2, maxLtv: 5000, bestApr: 1500 });
    const tokens = (await w.app.inject({ method: "GET", url: "/defi/currency-config" })).json() as {
      id: string;
      pools: number;
    }[];
    expect(tokens.find((c) => c.id === JTO)).toMatchObject({ pools: 1 });
    // the liquidity summary answers from the indexed pools and banks: index them first
    await createWorldIndexer(w).reconcile();
    const liq = (
      await w.app.inject({ method: "GET", url: `/defi/liquidity?currency=${USDC_MINT}` })
    ).json() as { availableLiquidity: string }[];
    expect(liq[0]).toMatchObject({ availableLiquidity: "3000000000", totalPools: 1 });
    const wl = (
      await w.app.inject({ method: "GET", url: `/defi/whitelist-addresses?pool=${defiPool}` })
    ).json();
    expect(wl).toEqual({ pool: defiPool, whitelist: null, addresses: [] });
  });

  let nftLoan: Address;
  it("takes an NFT loan (oracle co-signed) in the cheapest pool", async () => {
    const before = await tokenBalance(w, borrower.address, USDC_MINT);
    const { built, sent } = await buildSignSend(
      w.app,
      "/nft/take-loan",
      {
        borrower: borrower.address,
        nftMint: nfts[0]!.mint,
        duration: 7 * DAY,
        amount: "200000000",
        options: { priorityFeeLevel: "fast", amount: "0.001" },
        referrer: referrer.address,
      },
      [borrower],
    );
    expect(built.kind).toBe("NormalCoSigned");
    expect(sent.error).toBeUndefined();
    nftLoan = built.metadata.loan as Address;
    const [loan] = await w.tx.state.getLoans([nftLoan]);
    expect(loan).toMatchObject({
      status: "Ongoing",
      principal: 200_000_000n,
      pool: cheapPool,
      aprBps: 1500,
      collection,
      borrower: borrower.address,
    });
    expect(await tokenBalance(w, borrower.address, USDC_MINT)).toBe(before + 200_000_000n);
    expect(await tokenBalance(w, borrower.address, nfts[0]!.mint as Address)).toBe(0n);
    // The lender's token account for this NFT exists (a liquidation would deliver it there).
    const [ownerAta] = await w.tx.state.getAccounts([
      await findAssociatedTokenAddress(lender.address, nfts[0]!.mint as Address),
    ]);
    expect(ownerAta?.owner).toBe("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
  }, 60_000);

  it("refuses to co-sign an altered take-loan message; nothing lands", async () => {
    const b = await post(w.app, "/nft/take-loan", {
      borrower: borrower.address,
      nftMint: nfts[1]!.mint,
      duration: DAY,
      amount: "10000000",
    });
    const built = b.body as unknown as Built;
    const tx = getTransactionDecoder().decode(Buffer.from(built.transactions[0]!, "base64"));
    const bytes = new Uint8Array(tx.messageBytes);
    // Raise the principal inside the instruction data (the last bytes are the attestation; change earlier).
    bytes[bytes.length - 100] = (bytes[bytes.length - 100] ?? 0) ^ 0x40;
    const altered = await partiallySignTransaction([borrower.keyPair], {
      ...tx,
      messageBytes: bytes as never,
    });
    const r = await post(w.app, "/send-cos-transaction", {
      transaction: getBase64EncodedWireTransaction(altered),
    });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/did not build this message/);
    const [loan] = await w.tx.state.getLoans([built.metadata.loan as string]);
    expect(loan).toBeNull();
    // The untouched message is accepted.
    const [signed] = await signAll(built, [borrower]);
    const ok = await post(w.app, "/send-cos-transaction", { transaction: signed });
    expect(ok.body.error).toBeUndefined();
    const ids = [built.metadata.loan as string];
    const rep = await buildSignSend(w.app, "/nft/repay-loan", { borrower: borrower.address, loans: ids }, [
      borrower,
    ]);
    expect(rep.sent.error).toBeUndefined();
  }, 60_000);

  let extended: Address;
  it("quotes and extends the NFT loan with a larger amount", async () => {
    const q = await post(w.app, "/nft/extend-quote", {
      loan: nftLoan,
      duration: 14 * DAY,
      amount: "250000000",
    });
    expect(q.status, JSON.stringify(q.body)).toBe(200);
    expect(q.body).toMatchObject({ pool: cheapPool, amount: "250000000", netBorrowAmount: "50000000" });
    expect(BigInt(q.body.accruedInterestDue as string)).toBeGreaterThan(0n);
    const { built, sent } = await buildSignSend(
      w.app,
      "/nft/extend-loan",
      { borrower: borrower.address, loan: nftLoan, duration: 14 * DAY, amount: "250000000" },
      [borrower],
    );
    expect(built.kind).toBe("NormalCoSigned");
    expect(sent.error).toBeUndefined();
    extended = built.metadata.loan as Address;
    const [oldLoan, newLoan] = await w.tx.state.getLoans([nftLoan, extended]);
    expect(oldLoan).toMatchObject({ status: "Repaid", extendedTo: extended });
    expect(newLoan).toMatchObject({
      status: "Ongoing",
      principal: 250_000_000n,
      durationSeconds: BigInt(14 * DAY),
    });
  }, 60_000);

  it("repays one NFT loan: the NFT comes back, the fee waits in the bank's vault for the treasury", async () => {
    const { built, sent } = await buildSignSend(
      w.app,
      "/nft/repay-loan",
      { borrower: borrower.address, loans: [extended] },
      [borrower],
    );
    expect(built.kind).toBe("Normal");
    expect(sent.error).toBeUndefined();
    const [loan] = await w.tx.state.getLoans([extended]);
    expect(loan?.status).toBe("Repaid");
    expect(await tokenBalance(w, borrower.address, nfts[0]!.mint as Address)).toBe(1n);
    expect(loan!.protocolFeePaid).toBeGreaterThan(0n);
    expect((await w.tx.state.getBank(loan!.bank))!.feesOwed).toBeGreaterThanOrEqual(loan!.protocolFeePaid);
    // The read side's indexer picks the loans up and its routes show them.
    const indexer = createWorldIndexer(w);
    await indexer.reconcile();
    const listed = (
      await w.app.inject({ method: "GET", url: `/loan/user?pubkey=${borrower.address}` })
    ).json() as {
      loans: { pubkey: string; status: string }[];
    };
    expect(listed.loans.find((l) => l.pubkey === extended)?.status.toLowerCase()).toBe("repaid");
    expect(listed.loans.find((l) => l.pubkey === nftLoan)?.status.toLowerCase()).toBe("repaid");
    // The referred take-loan landed: the indexer linked it to the loan; a referral of a message that never
    // landed and a wallet referring itself count for nothing.
    const takeNft1 = {
      borrower: borrower.address,
      nftMint: nfts[1]!.mint,
      duration: DAY,
      amount: "10000000",
    };
    expect((await post(w.app, "/nft/take-loan", { ...takeNft1, referrer: referrer.address })).status).toBe(
      200,
    );
    expect((await post(w.app, "/nft/take-loan", { ...takeNft1, referrer: borrower.address })).status).toBe(
      200,
    );
    await indexer.reconcile();
    const figures = (
      await w.app.inject({ method: "GET", url: `/user/referrals?referrer=${referrer.address}` })
    ).json() as Record<string, unknown>;
    expect(figures).toEqual({
      referrer: referrer.address,
      walletsReferred: 1,
      transactions: 1,
      loans: 1,
      volume: [{ currency: USDC_MINT, principal: "200000000", usd: expect.any(Number) }],
      volumeUsd: expect.any(Number),
    });
    expect(figures.volumeUsd).toBeGreaterThan(197);
    const [self] = await w.tx.app.db.query<{ n: unknown }>(
      "SELECT count(*) AS n FROM referrals WHERE referrer = $1",
      [borrower.address],
    );
    expect(Number(self?.n)).toBe(0);
  }, 60_000);

  it("lends SOL: the borrower receives native SOL and repays from native SOL (wrapped and unwrapped)", async () => {
    const [solBank] = await findBankPda(w.programId, lender.address, SOL_MINT);
    const created = await buildSignSend(
      w.app,
      "/nft/create-pool",
      {
        bank: solBank,
        owner: lender.address,
        amount: "20000000000",
        mint: SOL_MINT,
        seed: "4",
        param: {
          apr: 4000,
          limits,
          collections: [{ collection: nfts[2]!.collectionId, collectionLtv: 5000, exposure: 10000 }],
        },
      },
      [lender],
    );
    expect(created.sent.error).toBeUndefined();
    const balance = async () =>
      BigInt((await w.tx.app.rpc.call<{ value: number }>("getBalance", [borrower.address])).value);
    const before = await balance();
    w.tx.state.invalidate();
    const taken = await buildSignSend(
      w.app,
      "/nft/take-loan",
      {
        borrower: borrower.address,
        nftMint: nfts[2]!.mint,
        duration: 2 * DAY,
        amount: "1000000000",
        currency: SOL_MINT,
      },
      [borrower],
    );
    expect(taken.sent.error).toBeUndefined();
    const loan = taken.built.metadata.loan as Address;
    const afterTake = await balance();
    // +1 SOL, minus loan/escrow rent and fees (well under 0.05 SOL).
    expect(afterTake - before).toBeGreaterThan(950_000_000n);
    expect(afterTake - before).toBeLessThanOrEqual(1_000_000_000n);
    expect(await tokenBalance(w, borrower.address, SOL_MINT)).toBe(0n);
    const repaid = await buildSignSend(
      w.app,
      "/nft/repay-loan",
      { borrower: borrower.address, loans: [loan] },
      [borrower],
    );
    expect(repaid.sent.error).toBeUndefined();
    const [account] = await w.tx.state.getLoans([loan]);
    expect(account?.status).toBe("Repaid");
    const afterRepay = await balance();
    // Paid 1 SOL + owed interest (tiny), got the escrow rent back; the temporary wSOL account is closed.
    expect(afterTake - afterRepay).toBeGreaterThan(990_000_000n);
    expect(afterTake - afterRepay).toBeLessThan(1_010_000_000n);
    expect(await tokenBalance(w, borrower.address, nfts[2]!.mint as Address)).toBe(1n);
    const [wsol] = await w.tx.state.getAccounts([
      await findAssociatedTokenAddress(borrower.address, SOL_MINT),
    ]);
    expect(wsol).toBeNull();
  }, 90_000);

  it("takes many defi loans and repays them all: what does not fit one transaction becomes a bundle", async () => {
    const loans: string[] = [];
    for (let i = 0; i < 8; i++) {
      const { built, sent } = await buildSignSend(
        w.app,
        "/defi/take-loan",
        {
          borrower: borrower.address,
          collateralMint: JTO,
          collateralAmount: "20000000000",
          duration: 3 * DAY,
          amount: "10000000",
        },
        [borrower],
      );
      expect(sent.error).toBeUndefined();
      loans.push(built.metadata.loan as string);
    }
    const ongoing = await w.tx.state.getLoans(loans);
    expect(ongoing.every((l) => l?.status === "Ongoing" && l.isDefi && l.pool === defiPool)).toBe(true);
    const jtoBefore = await tokenBalance(w, borrower.address, JTO);
    const { built, sent } = await buildSignSend(
      w.app,
      "/defi/repay-loan",
      { borrower: borrower.address, loans },
      [borrower],
    );
    expect(built.kind).toBe("Bundle");
    expect(built.transactions.length).toBeGreaterThan(1);
    expect(sent.error).toBeUndefined();
    expect(sent.signatures?.length).toBe(built.transactions.length);
    const repaid = await w.tx.state.getLoans(loans);
    expect(repaid.every((l) => l?.status === "Repaid")).toBe(true);
    expect(await tokenBalance(w, borrower.address, JTO)).toBe(jtoBefore + 8n * 20_000_000_000n);
  }, 180_000);

  it("refuses jito mode with a clear code when the cluster lacks Jito's tip accounts; nothing is issued", async () => {
    const saved = await Promise.all(
      JITO_TIP_ACCOUNTS.map(async (tip) => {
        const { value } = await w.tx.app.rpc.call<{ value: number }>("getBalance", [tip]);
        return [tip, value] as const;
      }),
    );
    expect(saved.every(([, lamports]) => lamports > 0)).toBe(true);
    for (const [tip] of saved) await w.net.setAccount(tip, { lamports: 0n });
    const issued = await w.tx.issued.count();
    const r = await post(w.app, "/defi/take-loan", {
      borrower: borrower.address,
      collateralMint: JTO,
      collateralAmount: "20000000000",
      duration: 2 * DAY,
      amount: "20000000",
      options: { broadcastMode: "jito", amount: "0.0005" },
    });
    expect([r.status, r.body.code, r.body.name]).toEqual([422, 11006, "JITO_UNAVAILABLE"]);
    expect(await w.tx.issued.count()).toBe(issued);
    for (const [tip, lamports] of saved) await w.net.setAccount(tip, { lamports: BigInt(lamports) });
  }, 60_000);

  it("extends a token loan to a smaller amount (the borrower pays the difference) with a jito tip", async () => {
    const taken = await buildSignSend(
      w.app,
      "/defi/take-loan",
      {
        borrower: borrower.address,
        collateralMint: JTO,
        collateralAmount: "20000000000",
        duration: 2 * DAY,
        amount: "20000000",
      },
      [borrower],
    );
    expect(taken.sent.error).toBeUndefined();
    const loan = taken.built.metadata.loan as Address;
    const q = await post(w.app, "/defi/extend-quote", { loan, duration: 5 * DAY, amount: "15000000" });
    expect(q.body).toMatchObject({ pool: defiPool, amount: "15000000", netBorrowAmount: "0" });
    const owed = BigInt(q.body.accruedInterestDue as string);
    expect(BigInt(q.body.repaymentDue as string)).toBe(owed + 5_000_000n);
    const usdcBefore = await tokenBalance(w, borrower.address, USDC_MINT);
    const { built, sent } = await buildSignSend(
      w.app,
      "/defi/extend-loan",
      {
        borrower: borrower.address,
        loan,
        duration: 5 * DAY,
        amount: "15000000",
        // the spec's default amount (0.0005 SOL): the localnet has Jito's tip accounts, as mainnet does
        options: { broadcastMode: "jito", amount: "0.0005" },
      },
      [borrower],
    );
    expect(sent.error, JSON.stringify(sent.error)).toBeUndefined();
    const message = getCompiledTransactionMessageDecoder().decode(
      getTransactionDecoder().decode(Buffer.from(built.transactions[0]!, "base64")).messageBytes,
    );
    expect(
      message.staticAccounts.filter((a) => (JITO_TIP_ACCOUNTS as readonly string[]).includes(a)),
    ).toHaveLength(1);
    const [oldLoan, newLoan] = await w.tx.state.getLoans([loan, built.metadata.loan as string]);
    expect(oldLoan?.status).toBe("Repaid");
    expect(newLoan).toMatchObject({
      status: "Ongoing",
      principal: 15_000_000n,
      collateralAmount: 20_000_000_000n,
    });
    const paid = usdcBefore - (await tokenBalance(w, borrower.address, USDC_MINT));
    expect(paid).toBeGreaterThanOrEqual(5_000_000n + owed);
    expect(paid).toBeLessThan(5_000_000n + owed + 10_000n);
    const rep = await buildSignSend(
      w.app,
      "/defi/repay-loan",
      { borrower: borrower.address, loans: [built.metadata.loan] },
      [borrower],
    );
    expect(rep.sent.error).toBeUndefined();
  }, 90_000);

  it("a loan the chain would refuse: 422 when simulated first, else the sender answers the decoded error", async () => {
    const body = {
      borrower: borrower.address,
      collateralMint: JTO,
      collateralAmount: "999000000000000",
      duration: DAY,
      amount: "10000000",
    };
    const simulated = await post(w.app, "/defi/take-loan", { ...body, options: { simulate: true } });
    expect(simulated.status).toBe(422);
    expect(simulated.body.message).toMatch(/simulation failed/i);
    const { built, sent } = await buildSignSend(w.app, "/defi/take-loan", body, [borrower]);
    expect(sent.result).toBeNull();
    expect(sent.error?.message).toMatch(/insufficient ?funds|failed/i);
    const [loan] = await w.tx.state.getLoans([built.metadata.loan as string]);
    expect(loan).toBeNull();
  }, 60_000);

  it("borrows against two NFTs at once: a BundleCoSigned of two co-signed loans from one pool", async () => {
    const mints = [nfts[0]!.mint, nfts[1]!.mint];
    const before = await tokenBalance(w, borrower.address, USDC_MINT);
    const payload = { borrower: borrower.address, nftMints: mints, duration: DAY, amount: "10000000" };
    // the sender co-signs only what this server built: a bundle with one altered transaction is refused
    // whole, before anything is sent
    const other = (await post(w.app, "/nft/take-loans", payload)).body as unknown as Built;
    expect(other.kind).toBe("BundleCoSigned");
    const [firstSigned, secondSigned] = await signAll(other, [borrower]);
    const second = getTransactionDecoder().decode(Buffer.from(secondSigned!, "base64"));
    const bytes = new Uint8Array(second.messageBytes);
    bytes[bytes.length - 100] = (bytes[bytes.length - 100] ?? 0) ^ 0x40;
    const altered = getBase64EncodedWireTransaction({ ...second, messageBytes: bytes as never });
    const refused = await post(w.app, "/send-cos-bundle", {
      transactions: [firstSigned, altered],
      blockHeight: other.lastValidBlockHeight,
    });
    expect([refused.status, refused.body.message]).toEqual([
      400,
      expect.stringMatching(/transactions\[1\].*did not build/),
    ]);
    expect(await w.tx.state.getLoans(other.metadata.loans as string[])).toEqual([null, null]);
    const { built, sent } = await buildSignSend(w.app, "/nft/take-loans", payload, [borrower]);
    expect(built.kind).toBe("BundleCoSigned");
    expect(built.transactions).toHaveLength(2);
    expect(sent.error).toBeUndefined();
    expect(sent.signatures).toHaveLength(2);
    const ids = built.metadata.loans as string[];
    const loans = await w.tx.state.getLoans(ids);
    expect(loans.map((l) => [l?.status, l?.pool, l?.collateralMint, l?.principal])).toEqual([
      ["Ongoing", built.metadata.pool, mints[0], 10_000_000n],
      ["Ongoing", built.metadata.pool, mints[1], 10_000_000n],
    ]);
    expect(await tokenBalance(w, borrower.address, USDC_MINT)).toBe(before + 20_000_000n);

    for (const bad of [
      { ...payload, nftMints: [mints[0]] },
      { ...payload, nftMints: Array.from({ length: 6 }, () => mints[0]) },
      { ...payload, nftMints: [mints[0], "not-a-key"] },
    ]) {
      const r = await post(w.app, "/nft/take-loans", bad);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
    }
    const rep = await buildSignSend(w.app, "/nft/repay-loan", { borrower: borrower.address, loans: ids }, [
      borrower,
    ]);
    expect(rep.sent.error).toBeUndefined();
  }, 90_000);

  it("refuses bad loan payloads with 400 before anything is built", async () => {
    const stranger = await generateKeyPairSigner();
    const cases: [string, unknown, RegExp][] = [
      [
        "/nft/take-loan",
        { borrower: stranger.address, nftMint: nfts[2]!.mint, duration: DAY },
        /does not hold NFT/,
      ],
      ["/nft/take-loan", { borrower: borrower.address, nftMint: JTO, duration: DAY }, /not an NFT/],
      ["/nft/take-loan", { borrower: borrower.address, duration: DAY }, /nftMint/],
      [
        "/nft/take-loan",
        { borrower: borrower.address, nftMint: nfts[2]!.mint, duration: "soon" },
        /duration/,
      ],
      [
        "/nft/take-loan",
        { borrower: borrower.address, nftMint: nfts[2]!.mint, duration: DAY, pool: stranger.address },
        /unknown nft-pool/,
      ],
      [
        "/defi/take-loan",
        { borrower: borrower.address, collateralMint: JTO, collateralAmount: "2.5", duration: DAY },
        /too many decimals/,
      ],
      ["/nft/repay-loan", { borrower: stranger.address, loans: [extended] }, /belongs to/],
      ["/nft/repay-loan", { borrower: borrower.address, loans: [] }, /loans/],
      [
        "/defi/extend-loan",
        { borrower: borrower.address, loan: stranger.address, duration: DAY },
        /unknown loan/,
      ],
    ];
    const issued = await w.tx.issued.count();
    for (const [url, payload, message] of cases) {
      const r = await post(w.app, url, payload);
      expect(r.status, `${url} ${JSON.stringify(payload)} -> ${JSON.stringify(r.body)}`).toBe(400);
      expect(String(r.body.message)).toMatch(message);
    }
    // a loan that already ended (the extension, repaid since): the program's code, how it ended, for its borrower
    const ended = await post(w.app, "/nft/repay-loan", { borrower: borrower.address, loans: [extended] });
    expect(ended.status).toBe(422);
    expect(ended.body).toMatchObject({
      code: 6033,
      name: "LoanNotOngoing",
      params: { status: "Repaid", viewer: "borrower", collateral: "NFT" },
    });
    expect(String(ended.body.message)).not.toContain(extended);
    expect(await w.tx.issued.count()).toBe(issued);
  }, 60_000);
});
