import type { AccountWrite, Chain } from "./chain.ts";
import type { LocalKeypair } from "./keypair.ts";
import type { ClassicNftSpec } from "./nft-mint.ts";
import type { BuildInstruction } from "./tx-builder.ts";

/** One minting transaction: its instructions (built when its turn comes) and the keypairs it needs. */
export interface MintStep {
  what: string;
  build: () => BuildInstruction[];
  signers?: LocalKeypair[];
}

/**
 * What a seeding module (compressed-seed) asks of the world's admin (WorldAdmin implements it): the chain, the
 * faucet key, batched account writes and ordered minting. A type below both, so the seeders need not import the
 * admin that calls them.
 */
export interface SeedAdmin {
  readonly chain: Chain;
  readonly faucetKeypair: LocalKeypair;
  /** The mint account of a classic NFT, as written by batch. */
  nftMintWrite(mint: string): AccountWrite;
  /** Applies the account writes `fn` collects, in one step. */
  batch(fn: (pending: Map<string, AccountWrite>) => void): Promise<void>;
  /** Mints what is missing of each classic NFT; answers the transactions sent. */
  mintClassicNfts(nfts: ClassicNftSpec[]): Promise<number>;
  /** Sends each step's transaction in order; answers the transactions sent. */
  sendInOrder(steps: MintStep[]): Promise<number>;
}
