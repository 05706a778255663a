// Every SOL figure shown before signing is what the chain then takes (#44): for each NFT standard (classic,
// programmable, Core, compressed), a borrow, a repay, an instant sell and a mortgage through the API on the localnet
// (real Metaplex programs, Bubblegum, the local NFT market), each wallet's SOL balance change compared with the
// costs the quote and the build answered (network fee, rent of the accounts opened, rent that comes back). The pool
// lends USDC, so every lamport that moves is a cost.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseTransactionCosts, type TransactionCosts } from "@cistern/protocol";
import { getListCoreAssetInstruction, getListNftInstruction, getPlaceBidInstruction } from "@cistern/sdk";
import { type Address, address, type KeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureProtocolLookupTable } from "../../src/tx/builder/ensure-protocol-lookup-table.ts";
import { findAssociatedTokenAddress } from "../../src/tx/builder/wire-instructions.ts";
import {
  ALL_STANDARDS_PRICES,
  DEMO_COMPRESSED_COLLECTION,
  DEMO_CORE_COLLECTION,
  DEMO_PNFT_COLLECTION,
  writeCatalogWithAllStandards,
} from "../helpers/nft-standards-catalog.ts";
import {
  buildSignSend,
  createNftPool,
  fundedWallet,
  nftPoolUpdateBody,
  post,
  SOL_MINT,
  sendAsAdmin,
  startTxWorld,
  TEST_POOL_LIMITS,
  type TxWorld,
  USDC_MINT,
} from "./support/tx-world.ts";

const DAY = 86_400;
const USDC = 1_000_000n;
const KOI = address(DEMO_CORE_COLLECTION.collectionId);
const PETL = address(DEMO_PNFT_COLLECTION.collectionId);
const SHELLS = address(DEMO_COMPRESSED_COLLECTION.collectionId);

type Standard = "classic" | "pNFT" | "Core" | "compressed";
type Wallet = Awaited<ReturnType<typeof fundedWallet>>;

/** The catalogue with every standard's demo collection, the Shells too. */
function writeCatalog(dir: string): string {
  const file = writeCatalogWithAllStandards(dir);
  const catalog = JSON.parse(readFileSync(file, "utf8")) as { collections: { collectionId: string }[] };
  const c = DEMO_COMPRESSED_COLLECTION;
  if (!catalog.collections.some((e) => e.collectionId === c.collectionId))
    catalog.collections.push({
      collectionId: c.collectionId,
      symbol: c.symbol,
      name: c.name,
      image: c.image,
      standard: "Compressed",
      magicEdenSlug: "",
      tensorSlug: "",
      supply: 0,
    } as { collectionId: string });
  writeFileSync(file, JSON.stringify(catalog));
  return file;
}

const costsOf = (body: unknown): TransactionCosts => {
  const costs = parseTransactionCosts(body);
  if (costs === null) throw new Error(`no costs in ${JSON.stringify(body)}`);
  return costs;
};

describe("costs told to the lamport, per standard (#44)", () => {
  let w: TxWorld;
  let dir: string;
  let lender: KeyPairSigner;
  let pool: Address;
  let bidder: Wallet;
  let seller: Wallet;
  let classicCollection: Address;
  const figures: string[] = [];

  const lamports = async (a: Address) =>
    BigInt(
      (await w.tx.app.rpc.call<{ value: number }>("getBalance", [a, { commitment: "confirmed" }])).value,
    );

  /** The NFT of `wallet` of a standard: a mint, a Core asset or a compressed leaf's asset id. */
  const nftOf = (wallet: Wallet, standard: Standard): string =>
    ({
      classic: () => wallet.given.nfts.find((n) => n.collectionId === classicCollection)!.mint,
      pNFT: () => wallet.given.programmableNfts[0]!.mint,
      Core: () => wallet.given.coreAssets[0]!.asset,
      compressed: () => wallet.given.compressedNfts[0]!.assetId,
    })[standard]();
  const collectionOf = (standard: Standard) =>
    ({ classic: classicCollection, pNFT: PETL, Core: KOI, compressed: SHELLS })[standard];

  /**
   * Asks the quote (when there is one) what the transaction will take, then builds, signs and sends; answers the
   * wallet's SOL before minus after, the costs the build answered and those the quote showed.
   */
  async function spend(
    url: string,
    body: Record<string, unknown>,
    signer: KeyPairSigner,
    quote?: { url: string; body: Record<string, unknown> },
  ) {
    let quoted: TransactionCosts | null = null;
    if (quote !== undefined) {
      const q = await post(w.app, quote.url, quote.body);
      expect(q.status, JSON.stringify(q.body)).toBe(200);
      quoted = costsOf(q.body.costs);
    }
    const before = await lamports(signer.address);
    const r = await buildSignSend(w.app, url, body, [signer]);
    expect(r.sent.error, JSON.stringify(r.sent)).toBeUndefined();
    const after = await lamports(signer.address);
    const costs = (r.built.metadata.costs as unknown[]).map(costsOf);
    return { taken: before - after, costs, quoted, built: r.built };
  }

  let bidNonce = 1n;
  const bid = async (price: bigint, collection: Address) =>
    sendAsAdmin(w.app, w.tx, bidder.signer, [
      await getPlaceBidInstruction({
        programAddress: w.nftMarket!,
        bidder: bidder.signer.address,
        nonce: bidNonce++,
        collection,
        currencyMint: USDC_MINT,
        bidderCurrencyAccount: await findAssociatedTokenAddress(bidder.signer.address, USDC_MINT),
        price,
      }),
    ]);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cistern-costs-"));
    w = await startTxWorld({
      nftMarket: true,
      env: { CATALOG_FILE: writeCatalog(dir) },
      prices: {
        tokens: ALL_STANDARDS_PRICES.tokens,
        collections: { ...ALL_STANDARDS_PRICES.collections, [SHELLS]: 10_000_000_000n },
      },
    });
    await w.net.setDemoRuleSetPrograms([w.programId, w.nftMarket!]);
    lender = (await fundedWallet(w.net)).signer;
    [bidder, seller] = await Promise.all([fundedWallet(w.net), fundedWallet(w.net)]);
    classicCollection = address(bidder.given.nfts[1]!.collectionId);
    const collections = [classicCollection, PETL, KOI, SHELLS];
    pool = await createNftPool(w, lender, {
      seed: 3,
      mint: USDC_MINT,
      amountBaseUnits: 5_000_000_000n,
      collections,
    });
    const updated = await buildSignSend(
      w.app,
      "/nft/update-pool",
      nftPoolUpdateBody({
        pool,
        owner: lender.address,
        apr: 2000,
        limits: TEST_POOL_LIMITS,
        collections,
        mortgageApr: 1500,
      }),
      [lender],
    );
    expect(updated.sent.error).toBeUndefined();
    await ensureProtocolLookupTable(w.tx, lender);
    await new Promise((r) => setTimeout(r, 500)); // a table is usable from the slot after its extension
    w.tx.state.invalidate();
  }, 240_000);
  afterAll(async () => {
    console.log(figures.join("\n"));
    await w?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const line = (what: string, taken: bigint, costs: TransactionCosts) =>
    `${what}: ${taken} lamports taken; fee ${costs.baseFeeLamports}+${costs.priorityFeeLamports}, rent ${costs.rent
      .map((r) => `${r.label} ${r.lamports}`)
      .join(", ")}; back ${costs.rentBack.map((r) => `${r.label} ${r.lamports}`).join(", ")}`;

  for (const standard of ["classic", "pNFT", "Core", "compressed"] as const)
    it(`${standard}: borrow, repay and instant sell take exactly the SOL shown`, async () => {
      const b = await fundedWallet(w.net);
      const nftMint = nftOf(b, standard);
      const loanBody = {
        borrower: b.signer.address,
        nftMint,
        duration: 7 * DAY,
        amount: String(100n * USDC),
        pool,
      };
      const quoteBody = {
        borrower: b.signer.address,
        nftMint,
        duration: 7 * DAY,
        amount: String(100n * USDC),
        pool,
      };
      const borrowed = await spend("/nft/take-loan", loanBody, b.signer, {
        url: "/nft/quote",
        body: quoteBody,
      });
      figures.push(line(`${standard} borrow`, borrowed.taken, borrowed.costs[0]!));
      expect(borrowed.taken).toBe(borrowed.costs[0]!.totalLamports);
      // the quote shown before signing: the same lamports, the same accounts opened
      expect(borrowed.quoted!.totalLamports).toBe(borrowed.taken);
      expect(borrowed.quoted!.rent.map((r) => [r.label, r.lamports])).toEqual(
        borrowed.costs[0]!.rent.map((r) => [r.label, r.lamports]),
      );
      // nothing of a loan opened against a pNFT, a Core or a compressed NFT comes back on repay: no escrow
      if (standard !== "classic") expect(borrowed.costs[0]!.rent.map((r) => r.label)).toEqual(["the loan"]);
      const loan = borrowed.built.metadata.loan as Address;

      await w.net.fundWallet(b.signer.address, { tokens: [{ mint: USDC_MINT, amount: 10_000_000n }] });
      const repaid = await spend("/nft/repay-loan", { borrower: b.signer.address, loans: [loan] }, b.signer);
      figures.push(line(`${standard} repay`, repaid.taken, repaid.costs[0]!));
      expect(repaid.taken).toBe(repaid.costs[0]!.totalLamports);

      // borrow again, then sell it into a bid
      const again = await spend("/nft/take-loan", loanBody, b.signer);
      expect(again.taken).toBe(again.costs[0]!.totalLamports);
      await bid(400n * USDC, collectionOf(standard));
      const saleBody = { borrower: b.signer.address, loan: again.built.metadata.loan };
      const sold = await spend("/nft/instant-sell", saleBody, b.signer, {
        url: "/nft/instant-sell-quote",
        body: saleBody,
      });
      figures.push(line(`${standard} instant sell`, sold.taken, sold.costs[0]!));
      expect(sold.taken).toBe(sold.costs[0]!.totalLamports);
      expect(sold.quoted!.totalLamports).toBe(sold.taken);
    }, 180_000);

  it("from a SOL pool: the principal arrives and the repayment leaves beside exactly the costs shown", async () => {
    const solPool = await createNftPool(w, lender, {
      seed: 4,
      mint: SOL_MINT,
      amountBaseUnits: 5_000_000_000n,
      collections: [classicCollection, KOI],
    });
    w.tx.state.invalidate();
    for (const standard of ["classic", "Core"] as const) {
      const b = await fundedWallet(w.net);
      const nftMint = nftOf(b, standard);
      const body = {
        borrower: b.signer.address,
        nftMint,
        duration: 7 * DAY,
        amount: "700000000",
        pool: solPool,
      };
      const borrowed = await spend("/nft/take-loan", body, b.signer, { url: "/nft/quote", body });
      figures.push(line(`${standard} SOL borrow`, borrowed.taken, borrowed.costs[0]!));
      // 0.7 SOL arrives; the fee and the rent of what the loan opens leave
      expect(borrowed.taken).toBe(borrowed.costs[0]!.totalLamports - 700_000_000n);
      expect(borrowed.quoted!.totalLamports).toBe(borrowed.costs[0]!.totalLamports);
      const loan = borrowed.built.metadata.loan as Address;
      const repaid = await spend("/nft/repay-loan", { borrower: b.signer.address, loans: [loan] }, b.signer);
      figures.push(line(`${standard} SOL repay`, repaid.taken, repaid.costs[0]!));
      const repayment = BigInt((repaid.built.metadata.repayment as string[])[0]!);
      expect(repaid.taken).toBe(repayment + repaid.costs[0]!.totalLamports);
    }
  }, 180_000);

  it("classic and Core mortgages take exactly the SOL shown", async () => {
    const classic = address(seller.given.nfts.find((n) => n.collectionId === classicCollection)!.mint);
    await sendAsAdmin(w.app, w.tx, seller.signer, [
      await getListNftInstruction({
        programAddress: w.nftMarket!,
        seller: seller.signer.address,
        nftMint: classic,
        sellerNftAccount: await findAssociatedTokenAddress(seller.signer.address, classic),
        currencyMint: USDC_MINT,
        price: 200n * USDC,
      }),
    ]);
    const core = address(seller.given.coreAssets[0]!.asset);
    await sendAsAdmin(w.app, w.tx, seller.signer, [
      await getListCoreAssetInstruction({
        programAddress: w.nftMarket!,
        seller: seller.signer.address,
        asset: core,
        collection: KOI,
        currencyMint: USDC_MINT,
        price: 200n * USDC,
      }),
    ]);
    for (const [what, nftMint] of [
      ["classic", classic],
      ["Core", core],
    ] as const) {
      const buyer = await fundedWallet(w.net);
      const body = { buyer: buyer.signer.address, nftMint, duration: 14 * DAY };
      const bought = await spend("/nft/take-mortgage", body, buyer.signer, {
        url: "/nft/take-mortgage-quote",
        body,
      });
      figures.push(line(`${what} mortgage`, bought.taken, bought.costs[0]!));
      expect(bought.taken).toBe(bought.costs[0]!.totalLamports);
      expect(bought.quoted!.totalLamports).toBe(bought.taken);
    }
  }, 180_000);
});
