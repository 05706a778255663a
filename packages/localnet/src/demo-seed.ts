import { JITO_TIP_ACCOUNTS } from "@cistern/protocol";
import { decodeAddress } from "./base58.ts";
import type { AccountWrite } from "./chain.ts";
import { seedCompressedCollections } from "./compressed-seed.ts";
import { getDemoMetadataUri } from "./das/offchain-metadata.ts";
import { getDemoKeypair } from "./demo-address.ts";
import {
  DEMO_COLLECTIONS,
  DEMO_CORE_COLLECTIONS,
  DEMO_PROGRAMMABLE_COLLECTIONS,
  DEMO_TOKENS,
  WRAPPED_SOL_MINT_ADDRESS,
} from "./demo-world.ts";
import { type ClassicNftSpec, getDemoRuleSetAddress, type ProgrammableNftSpec } from "./nft-mint.ts";
import type { WorldAdmin } from "./world-admin.ts";

/** Lamports the faucet keypair keeps for airdrops (5M SOL; stays below 2^53). */
export const FAUCET_RESERVE_LAMPORTS = 5_000_000_000_000_000n;
const TOKEN_2022_NATIVE_MINT = "9pan9bMn5HatX4EJdBwg9VgCa7Uz5HL8N1m5D3NdXejP";

/** Context handed to extra seeding steps (e.g. lender banks and pools, once the program exists). */
export interface SeedContext {
  rpcUrl: string;
  wsUrl: string;
  admin: WorldAdmin;
  /** Programs deployed at start (id and `.so` path). */
  programs: { programId: string; soPath: string }[];
}

/** An extra seeding step run after the demo world exists; it must be idempotent. */
export type SeedStep = (ctx: SeedContext) => Promise<void>;

/**
 * Creates whatever part of the demo world is missing (idempotent): the native mints, USDC and the demo tokens
 * (faucet = mint authority), and every collection with its listed NFTs (held by the faucet), minted through the
 * real Token Metadata program: sized collection NFTs, then their items verified into them; the demo rule set (Token
 * Auth Rules) and the pNFT collections it governs; the Core collections and their assets (Core); the compressed
 * collections (Bubblegum trees and their leaves, src/compressed-seed.ts). Returns how many
 * accounts it wrote directly plus how many minting transactions it sent.
 */
export async function seedDemoWorld(admin: WorldAdmin): Promise<number> {
  const svm = admin.chain.svm;
  const faucet = admin.faucetKeypair.address;
  let written = 0;
  if (!svm.getAccount(decodeAddress(WRAPPED_SOL_MINT_ADDRESS))) {
    svm.withNativeMints();
    const natives = [WRAPPED_SOL_MINT_ADDRESS, TOKEN_2022_NATIVE_MINT]
      .map((a) => admin.readAccount(a))
      .filter((a): a is AccountWrite => a !== null);
    await admin.chain.setAccounts(natives);
    written += natives.length;
  }
  const nfts: ClassicNftSpec[] = [];
  await admin.batch((pending) => {
    const balance = svm.getBalance(decodeAddress(faucet)) ?? 0n;
    if (balance < FAUCET_RESERVE_LAMPORTS / 2n)
      admin.addLamports(faucet, FAUCET_RESERVE_LAMPORTS - balance, pending);
    for (const t of DEMO_TOKENS) {
      if (t.mint === WRAPPED_SOL_MINT_ADDRESS || svm.getAccount(decodeAddress(t.mint))) continue;
      pending.set(t.mint, admin.mintWrite(t.mint, t.decimals, 0n));
    }
    for (const c of DEMO_COLLECTIONS) {
      nfts.push({
        mint: c.collectionId,
        name: c.name,
        symbol: c.symbol,
        uri: getDemoMetadataUri(c.collectionId),
        owner: faucet,
        collection: null,
        isCollection: true,
      });
      for (const nft of c.nfts) nfts.push(admin.collectionItem(c, nft.index, faucet));
    }
    for (const nft of nfts)
      if (!svm.getAccount(decodeAddress(nft.mint))) pending.set(nft.mint, admin.nftMintWrite(nft.mint));
    written += pending.size;
  });
  written += await admin.mintClassicNfts(nfts);
  const ruleSet = getDemoRuleSetAddress(faucet);
  const pnfts: ProgrammableNftSpec[] = [];
  for (const c of DEMO_PROGRAMMABLE_COLLECTIONS) {
    const base = { symbol: c.symbol, owner: faucet, ruleSet };
    pnfts.push({
      ...base,
      mint: getDemoKeypair(c.seed),
      name: c.name,
      uri: getDemoMetadataUri(c.collectionId),
      collection: null,
    });
    for (const n of c.nfts)
      pnfts.push({
        ...base,
        mint: getDemoKeypair(n.seed),
        name: n.name,
        uri: getDemoMetadataUri(n.mint),
        collection: c.collectionId,
      });
  }
  written += await admin.mintProgrammableNfts(pnfts);
  written += await admin.mintCore(
    DEMO_CORE_COLLECTIONS.flatMap((c) => [
      { collection: getDemoKeypair(c.seed), name: c.name, uri: getDemoMetadataUri(c.collectionId) },
      ...c.assets.map((a) => ({
        asset: getDemoKeypair(a.seed),
        collection: c.collectionId,
        owner: faucet,
        name: a.name,
        uri: getDemoMetadataUri(a.address),
      })),
    ]),
  );
  written += await seedCompressedCollections(admin);
  return written;
}

/** Tops the faucet keypair up to its airdrop reserve (runs on every start, seeded or not). */
export async function ensureFaucetReserve(admin: WorldAdmin): Promise<void> {
  const faucet = admin.faucetKeypair.address;
  await admin.batch((pending) => {
    const balance = admin.chain.svm.getBalance(decodeAddress(faucet)) ?? 0n;
    if (balance < FAUCET_RESERVE_LAMPORTS / 2n)
      admin.addLamports(faucet, FAUCET_RESERVE_LAMPORTS - balance, pending);
  });
}

/** Runs extra seeding steps in order. */
export async function runSeedSteps(steps: SeedStep[], ctx: SeedContext): Promise<void> {
  for (const step of steps) await step(ctx);
}

/**
 * Creates Jito's tip accounts as mainnet has them (system accounts holding at least the rent-exempt minimum),
 * so a transaction that tips in jito mode lands here as it would there. Runs on every start.
 */
export async function ensureJitoTipAccounts(admin: WorldAdmin): Promise<void> {
  const rentExempt = admin.chain.svm.minimumBalanceForRentExemption(0n);
  await admin.batch((pending) => {
    for (const tip of JITO_TIP_ACCOUNTS) {
      const balance = admin.chain.svm.getBalance(decodeAddress(tip)) ?? 0n;
      if (balance < rentExempt) admin.addLamports(tip, rentExempt - balance, pending);
    }
  });
}
