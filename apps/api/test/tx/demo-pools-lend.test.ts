// Every demo pool `npm start` seeds lends (issue #44, 1): on the world scripts/start.ts composes (a seeded localnet,
// the bootstrap with its demo lenders, NFT market, market maker and marginfi, the API with its keeper and indexer),
// a fresh wallet funded by the faucet takes a loan from each pool against an asset of each of its collections (an
// NFT of each standard, or tokens) through the API: quote, take-loan build, sign, send, confirmed, then the loan is
// listed for the wallet with its standard. The built transaction's size is printed per pool and collection.
import { DEMO_WORLD, type FaucetResult } from "@cistern/localnet";
import { type Address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NpmStartWorld, startNpmStartWorld } from "../helpers/npm-start-world.ts";
import { buildSignSend, post } from "./support/tx-world.ts";

const DAY = 86_400;

/** A faucet-funded wallet and the collections and tokens it has borrowed against (the faucet gives one NFT each). */
interface Wallet {
  signer: KeyPairSigner;
  given: FaucetResult;
  used: Set<string>;
}

/** What the wallet holds of `collection` (an NFT's mint, Core asset or leaf id; a token's mint) and its standard. */
function assetOf(given: FaucetResult, collection: string) {
  const nft =
    given.nfts.find((n) => n.collectionId === collection)?.mint ??
    given.programmableNfts.find((n) => n.collectionId === collection)?.mint ??
    given.coreAssets.find((n) => n.collectionId === collection)?.asset ??
    given.compressedNfts.find((n) => n.collectionId === collection)?.assetId;
  const token = given.tokens.find((t) => t.mint === collection);
  return { nft, token };
}

describe("npm start: every demo pool lends to a new wallet, against each of its collections", () => {
  let world: NpmStartWorld;
  const wallets: Wallet[] = [];
  const sizes: string[] = [];

  beforeAll(async () => {
    world = await startNpmStartWorld("cistern-demo-pools-");
  }, 600_000);
  afterAll(async () => {
    console.log(`take-loan sizes on the demo world:\n${sizes.join("\n")}`);
    await world?.close();
  });

  /** A wallet that has not borrowed against `collection` yet (a new one from the faucet when none). */
  async function walletFor(collection: string): Promise<Wallet> {
    const free = wallets.find((w) => !w.used.has(collection));
    if (free) return free;
    const signer = await generateKeyPairSigner();
    const wallet = { signer, given: await world.localnet.faucet(signer.address), used: new Set<string>() };
    wallets.push(wallet);
    return wallet;
  }

  it("seeds the pools scripts/start.ts seeds: every one lists collections or tokens", () => {
    expect(world.pools.length).toBeGreaterThanOrEqual(13);
    for (const pool of world.pools) expect(pool.plan.params.collections.length).toBeGreaterThan(0);
  });

  it("each pool: quote, take-loan, sign, send, confirmed and listed, against each collection", async () => {
    const app = world.api.app;
    const failures: string[] = [];
    for (const pool of world.pools) {
      for (const entry of pool.plan.params.collections) {
        const collection = entry.id as string;
        const what = `${pool.name} / ${collectionName(collection)}`;
        const wallet = await walletFor(collection);
        wallet.used.add(collection);
        const borrower = wallet.signer.address;
        const { nft, token } = assetOf(wallet.given, collection);
        const isNft = pool.poolType === "nft-pool";
        if (isNft ? nft === undefined : token === undefined) {
          failures.push(`${what}: the faucet gave no asset of it`);
          continue;
        }
        // a quarter of the faucet's tokens: above every pool's minimum, within its maximum once capped
        const collateral = isNft
          ? { nftMint: nft! }
          : { collateralMint: collection, collateralAmount: String(BigInt(token!.amount) / 4n) };
        const route = isNft ? "/nft" : "/defi";
        const body = { ...collateral, duration: DAY, borrower, pool: pool.address };
        // the market's book values a collection once the indexer has read it
        let quote = await post(app, `${route}/quote`, body);
        for (let i = 0; quote.status !== 200 && i < 120; i++) {
          await new Promise((r) => setTimeout(r, 500));
          quote = await post(app, `${route}/quote`, body);
        }
        if (quote.status !== 200) {
          failures.push(`${what}: quote ${quote.status} ${JSON.stringify(quote.body)}`);
          continue;
        }
        expect(quote.body.pool, what).toBe(pool.address);
        expect(BigInt(quote.body.amount as string), what).toBeGreaterThan(0n);
        let taken: Awaited<ReturnType<typeof buildSignSend>>;
        try {
          taken = await buildSignSend(app, `${route}/take-loan`, body, [wallet.signer]);
        } catch (error) {
          failures.push(`${what}: ${error instanceof Error ? error.message : error}`);
          continue;
        }
        const bytes = Buffer.from(taken.built.transactions[0]!, "base64").length;
        sizes.push(`${what} (${currencyName(pool.currencyMint)}): ${bytes} B`);
        if (taken.sent.result === null || taken.sent.error !== undefined) {
          failures.push(`${what}: not confirmed: ${taken.sent.error?.message}`);
          continue;
        }
        const loan = taken.built.metadata.loan as Address;
        const loanType = taken.built.metadata.loanType as string;
        expect(bytes, what).toBeLessThanOrEqual(1232);
        await expect
          .poll(
            async () => {
              const listed = (
                await app.inject({ method: "GET", url: `/loan/user?pubkey=${borrower}` })
              ).json() as { loans: { pubkey: string; loanType: string; pool: string }[] };
              return listed.loans.find((l) => l.pubkey === loan);
            },
            { timeout: 60_000, interval: 300 },
          )
          .toMatchObject({ loanType, pool: pool.address });
      }
    }
    expect(failures.join("\n")).toBe("");
  }, 900_000);
});

function collectionName(id: string): string {
  const all = [
    ...DEMO_WORLD.collections,
    ...DEMO_WORLD.coreCollections,
    ...DEMO_WORLD.programmableCollections,
    ...DEMO_WORLD.compressedCollections,
  ];
  return (
    all.find((c) => c.collectionId === id)?.name ?? DEMO_WORLD.tokens.find((t) => t.mint === id)?.symbol ?? id
  );
}

function currencyName(mint: string): string {
  return DEMO_WORLD.tokens.find((t) => t.mint === mint)?.symbol ?? mint;
}
