/**
 * A lending world with the real Metaplex Core program (the vendored binary at its mainnet id), a Core collection and
 * an nft-pool listing it, and the Core TakeLoan the tests of Core loans and Core sales start from.
 */
import { MPL_CORE_PROGRAM, readVendoredProgram, VENDORED_PROGRAMS } from "@cistern/localnet";
import type { PoolParams } from "@cistern/sdk";
import { AccountRole, type Address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { CORE, createAsset, createCollection, type Plugin, readAsset } from "./core.ts";
import { expectOk } from "./kit.ts";
import { buildWorld, createPool, nftLoanIxFor, poolParams, type World } from "./world.ts";

const ro = (a: Address) => ({ address: a, role: AccountRole.READONLY });
const wr = (a: Address) => ({ address: a, role: AccountRole.WRITABLE });

export interface CoreWorld extends World {
  /** the collections' update authority (creates collections and assets) */
  authority: KeyPairSigner;
  coreCollection: Address;
  corePool: Address;
}

let poolSeed = 200n;
/** A pool seed no other pool of the lender's uses. */
export const nextPoolSeed = () => poolSeed++;

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
    nextPoolSeed(),
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
export async function takeIx(w: CoreWorld, asset: Address, collection = w.coreCollection, pool = w.corePool) {
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

export interface Opened {
  loan: Address;
  asset: Address;
}

/** Takes a loan against a fresh asset; returns the loan and the asset. */
export async function openLoan(w: CoreWorld): Promise<Opened & { computeUnits: bigint }> {
  const asset = await mintAsset(w);
  const ix = await takeIx(w, asset);
  const out = expectOk(await w.h.trySend([ix]));
  return { loan: ix.loan, asset, computeUnits: out.computeUnits };
}
