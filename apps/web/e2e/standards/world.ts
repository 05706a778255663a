import { mkdir } from "node:fs/promises";
import { DEMO_WORLD, type FaucetResult } from "@cistern/localnet";
import { decodeVenuesAccount, findVenuesPda } from "@cistern/sdk";
import { type Address, generateKeyPairSigner } from "@solana/kit";
import type { Keypair } from "@solana/web3.js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { ensureProtocolLookupTable } from "../../../api/src/tx/builder/ensure-protocol-lookup-table.ts";
import { createFixedValuationSources } from "../../../api/test/helpers/fixed-valuation.ts";
import {
  ALL_STANDARDS_PRICES,
  writeCatalogWithAllStandards,
} from "../../../api/test/helpers/nft-standards-catalog.ts";
import { getAccountData } from "../chain-reads.ts";
import { launchChromium, makeTempDir, removeDir, TEST_OUTPUT_DIR } from "../harness.ts";
import { openAs } from "../journey-helpers.ts";
import { JOURNEY_SLOT_MS, type Stack, startStack } from "../stack.ts";

/** The demo compressed collection (Cistern Shells), valued like the pNFT and Core collections in this world. */
export const SHELLS = DEMO_WORLD.compressedCollections[0]!;

/**
 * One world the NFT-standard journeys share (see standards.test.ts): the journeys' stack with every standard in its
 * catalogue, fixed collection values, marginfi pinned as the lending venue, the demo rule set allowing the lending
 * program and the pinned NFT market, and the protocol's lookup table, as `npm start` keeps them; one Chromium. Each
 * journey brings its own wallets.
 */
export interface StandardsWorld {
  stack: Stack;
  browser: Browser;
  /** The NFT market pinned in the lending program's Venues. */
  marketProgram: Address;
}

/** How a journey module reaches the world (set once the file's beforeAll has started it). */
export type GetWorld = () => StandardsWorld;

/**
 * Starts the shared world:
 * - the API's catalogue lists the pNFT and Core collections (writeCatalogWithAllStandards);
 * - collection values are the API's fixed test prices: the classic ones as the demo market seeds them, the pNFT, Core
 *   and compressed (Cistern Shells) collections 10 SOL each (the local market values classic collections only);
 * - marginfi v2 is the pinned lending venue, as `npm start` pins it (`stack.marginfi` names its group and banks);
 * - the demo rule set allows the lending program and the NFT market (a pNFT's loan delegate and its sale), set once
 *   here (a journey must not change it: every pNFT journey after it would see its rules);
 * - the protocol's lookup table exists (a compressed NFT's transactions carry a proof and need it).
 */
async function startStandardsWorld(catalogDir: string): Promise<StandardsWorld> {
  await mkdir(TEST_OUTPUT_DIR, { recursive: true });
  const stack = await startStack({
    slotMs: JOURNEY_SLOT_MS,
    env: { CATALOG_FILE: writeCatalogWithAllStandards(catalogDir) },
    lendingVenue: "marginfi",
    valuationSources: createFixedValuationSources({
      tokens: ALL_STANDARDS_PRICES.tokens,
      collections: { ...ALL_STANDARDS_PRICES.collections, [SHELLS.collectionId]: 10_000_000_000n },
    }),
  });
  try {
    const [venues] = await findVenuesPda(stack.programId as Address);
    const marketProgram = decodeVenuesAccount(
      await getAccountData(stack.localnet.rpcUrl, venues),
    ).marketProgram;
    await stack.localnet.setDemoRuleSetPrograms([stack.programId, marketProgram]);
    const payer = await generateKeyPairSigner();
    await stack.localnet.fundWallet(payer.address, { lamports: 1_000_000_000n });
    await ensureProtocolLookupTable(stack.tx, payer);
    // the table is usable (ensureProtocolLookupTable answers from the slot after its extension); the API's chain
    // state reads it afresh
    stack.tx.state.invalidate();
    const browser = await launchChromium();
    return { stack, browser, marketProgram };
  } catch (error) {
    await stack.close();
    throw error;
  }
}

/**
 * Declares the file's beforeAll / afterAll that start and stop the shared world; answers its getter for the journey
 * modules (call it at the top of the test file, before registering them).
 */
export function declareStandardsWorld(): GetWorld {
  let world: StandardsWorld | undefined;
  let catalogDir: string | undefined;
  beforeAll(async () => {
    catalogDir = await makeTempDir("cistern-standards-world-");
    world = await startStandardsWorld(catalogDir);
  }, 300_000);
  afterAll(async () => {
    await world?.browser.close();
    await world?.stack.close();
    await removeDir(catalogDir);
  });
  return () => {
    if (!world) throw new Error("the standards world did not start (see the file's beforeAll)");
    return world;
  };
}

/**
 * A fresh wallet of a journey: 100 SOL and `faucetCalls` faucet calls (each gives SOL, USDC, the demo tokens and one
 * NFT of every standard: a classic NFT per classic collection, a pNFT, a Core asset, a compressed leaf). Answers what
 * each call gave.
 */
export async function fundJourneyWallet(
  world: StandardsWorld,
  key: Keypair,
  faucetCalls = 1,
): Promise<FaucetResult[]> {
  const owner = key.publicKey.toBase58();
  const given: FaucetResult[] = [];
  for (let i = 0; i < faucetCalls; i++) given.push(await world.stack.localnet.faucet(owner));
  await world.stack.localnet.fundWallet(owner, { lamports: 100_000_000_000n });
  return given;
}

/** A journey's page whose development wallet is `key` (its own browser context; page errors go to `errors`). */
export function openJourneyPage(world: StandardsWorld, key: Keypair, errors: string[]): Promise<Page> {
  return openAs(world.browser, key, errors);
}

/** Closes the browser contexts of a journey's pages (its afterAll). */
export async function closePages(...pages: (Page | undefined)[]): Promise<void> {
  for (const page of pages) await page?.context().close();
}

/**
 * The pool `owner` owns (its first, as the API lists it), once the API indexed it: a journey's borrower borrows from
 * its own lender's pool (Borrow `?pool=`), never from another journey's pool lending against the same collection.
 */
export async function getPoolOf(world: StandardsWorld, owner: Keypair): Promise<string> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const body = (await (
      await fetch(`${world.stack.apiUrl}/pool/get-by-owner?owner=${owner.publicKey.toBase58()}`)
    ).json()) as { pools?: { pubkey: string }[] };
    const pool = body.pools?.[0]?.pubkey;
    if (pool) return pool;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`no pool of ${owner.publicKey.toBase58()} within 30 s`);
}
