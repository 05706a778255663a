// Metaplex Core assets on the real Core program for the lending program's tests and the compute-unit bench: a world
// with a Core collection and a pool listing it, assets minted into it, and the TakeLoan, Repay, Liquidate, Extend and
// Refinance instructions of a Core loan (LAYOUT.md "Core assets").
import { MPL_CORE_PROGRAM, readVendoredProgram, VENDORED_PROGRAMS } from "@cistern/localnet";
import type { PoolParams } from "@cistern/sdk";
import { AccountRole, type Address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { CORE, createAsset, createCollection, type Plugin, readAsset } from "./core.ts";
import { expectOk } from "./kit.ts";
import {
  buildWorld,
  createPool,
  liquidateIx,
  moveLoanIx,
  nftLoanIxFor,
  poolParams,
  repayIx,
  type World,
} from "./world.ts";

const ro = (a: Address) => ({ address: a, role: AccountRole.READONLY });
const wr = (a: Address) => ({ address: a, role: AccountRole.WRITABLE });

export interface CoreWorld extends World {
  /** the collections' update authority (creates collections and assets) */
  authority: KeyPairSigner;
  coreCollection: Address;
  corePool: Address;
}

/** The seed of a world's Core pool (a test's further pools count up from 201). */
const CORE_POOL_SEED = 200n;

/** A Core collection (plugins optional) created by `authority`. */
export async function newCollection(
  w: World,
  authority: KeyPairSigner,
  plugins?: Plugin[],
): Promise<Address> {
  const c = await generateKeyPairSigner();
  expectOk(await w.h.trySend([createCollection(c, authority, plugins)], authority));
  return c.address;
}

/** Loads Core, creates a Core collection and an nft-pool listing it (`pool` overrides its parameters). */
export async function coreWorld(pool: Partial<PoolParams> = {}): Promise<CoreWorld> {
  const w = await buildWorld();
  const core = VENDORED_PROGRAMS.find((p) => p.programId === MPL_CORE_PROGRAM);
  if (!core) throw new Error("Core is not vendored");
  w.h.svm.addProgram(CORE, readVendoredProgram(core));
  const authority = await w.h.wallet(100_000_000_000n);
  const coreCollection = await newCollection(w, authority);
  const corePool = await createPool(
    w.h,
    w.lender,
    w.currency,
    "nft-pool",
    CORE_POOL_SEED,
    poolParams(coreCollection, pool),
  );
  return { ...w, authority, coreCollection, corePool };
}

/** An asset of `collection` (its update authority signs), owned by `owner` (the borrower by default). */
export async function mintAsset(
  w: CoreWorld,
  collection = w.coreCollection,
  plugins?: Plugin[],
  owner: Address = w.borrower.address,
): Promise<Address> {
  const asset = await generateKeyPairSigner();
  expectOk(await w.h.trySend([createAsset(asset, collection, w.authority, owner, plugins)], w.authority));
  return asset.address;
}

export const ownerOf = (w: World, asset: Address) => readAsset(w.h.data(asset)).owner;

/** TakeLoan of a Core asset (LAYOUT.md "Core assets"): 7, 8, 9 the asset, 13 its collection, 14 Core. */
export async function takeCoreIx(
  w: CoreWorld,
  asset: Address,
  collection = w.coreCollection,
  pool = w.corePool,
) {
  const ix = await nftLoanIxFor(w, { mint: asset, account: asset, collection, pool });
  const accounts = [...(ix.accounts ?? [])];
  accounts[7] = wr(asset);
  accounts[8] = wr(asset);
  accounts[9] = wr(asset);
  accounts[13] = ro(collection);
  accounts.splice(14, 0, ro(CORE));
  const data = new Uint8Array(ix.data ?? []);
  data[2] = 0;
  data[3] = 0;
  data[121] = 2; // CoreNft
  return { ...ix, accounts, data };
}

/** Repay of a Core loan: 6 and 7 the asset, 10 the collection it names now, 11 Core. */
export async function repayCoreIx(
  w: CoreWorld,
  loan: Address,
  asset: Address,
  collection = w.coreCollection,
) {
  const ix = await repayIx(w, loan, w.corePool, asset);
  const accounts = [...(ix.accounts ?? [])];
  accounts[6] = wr(asset);
  accounts[7] = wr(asset);
  accounts.push(ro(collection), ro(CORE));
  return { ...ix, accounts };
}

/** Liquidate of a Core loan: 4 the asset, 5 the pool owner's wallet, 7 the collection, 8 Core. */
export async function liquidateCoreIx(
  w: CoreWorld,
  liquidator: KeyPairSigner,
  loan: Address,
  asset: Address,
  collection = w.coreCollection,
  pool: { pool: Address; bank: Address; owner: Address } = {
    pool: w.corePool,
    bank: w.bank,
    owner: w.lender.address,
  },
) {
  const ix = await liquidateIx(w, liquidator, loan, pool.owner, pool.pool);
  const accounts = [...(ix.accounts ?? [])];
  accounts[2] = wr(pool.bank);
  accounts[4] = wr(asset);
  accounts[5] = ro(pool.owner);
  accounts.push(ro(collection), ro(CORE));
  return { ...ix, accounts };
}

export interface Opened {
  loan: Address;
  asset: Address;
}

/** Extend (same pool) or, given a target pool, Refinance of a Core loan: 7, 9 and 10 the asset, then (after the
 * optional whitelist) the collection the asset names and Core. */
export async function moveCoreIx(
  w: CoreWorld,
  oldLoan: Address,
  asset: Address,
  target?: { pool: Address; bank: Address },
) {
  const ix = await moveLoanIx(w, {
    mint: asset,
    collection: w.coreCollection,
    oldLoan,
    oldPool: w.corePool,
    target,
  });
  const accounts = [...(ix.accounts ?? [])];
  accounts[7] = wr(asset);
  accounts[9] = wr(asset);
  accounts[10] = wr(asset);
  accounts.push(ro(w.coreCollection), ro(CORE));
  return { ...ix, accounts };
}

/** Takes a loan against a fresh asset; returns the loan and the asset. */
export async function openLoan(w: CoreWorld): Promise<Opened & { computeUnits: bigint }> {
  const asset = await mintAsset(w);
  const ix = await takeCoreIx(w, asset);
  const out = expectOk(await w.h.trySend([ix]));
  return { loan: ix.loan, asset, computeUnits: out.computeUnits };
}
