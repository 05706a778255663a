/** Classic SPL Token helpers for the tests (mints, token accounts, balances). */

import { setNftMetadata } from "@cistern/sdk/testing";
import { type Address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { getCreateAccountInstruction } from "@solana-program/system";
import {
  getInitializeAccount3Instruction,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToInstruction,
  getTokenSize,
  TOKEN_PROGRAM_ADDRESS,
} from "@solana-program/token";
import type { Harness } from "./harness.ts";

/** Creates a mint whose authority is the harness payer. */
export async function createMint(h: Harness, decimals: number, at?: KeyPairSigner): Promise<Address> {
  const mint = at ?? (await generateKeyPairSigner());
  const space = BigInt(getMintSize());
  await h.send([
    getCreateAccountInstruction({
      payer: h.payer,
      newAccount: mint,
      lamports: h.svm.minimumBalanceForRentExemption(space),
      space,
      programAddress: TOKEN_PROGRAM_ADDRESS,
    }),
    getInitializeMint2Instruction({ mint: mint.address, decimals, mintAuthority: h.payer.address }),
  ]);
  return mint.address;
}

/** Creates a token account of `mint` owned by `owner`. */
export async function createTokenAccount(h: Harness, mint: Address, owner: Address): Promise<Address> {
  const acct: KeyPairSigner = await generateKeyPairSigner();
  const space = BigInt(getTokenSize());
  await h.send([
    getCreateAccountInstruction({
      payer: h.payer,
      newAccount: acct,
      lamports: h.svm.minimumBalanceForRentExemption(space),
      space,
      programAddress: TOKEN_PROGRAM_ADDRESS,
    }),
    getInitializeAccount3Instruction({ account: acct.address, mint, owner }),
  ]);
  return acct.address;
}

export async function mintTo(h: Harness, mint: Address, token: Address, amount: bigint): Promise<void> {
  await h.send([getMintToInstruction({ mint, token, mintAuthority: h.payer, amount })]);
}

/** A token account of `mint` for `owner`, funded with `amount`. */
export async function fundedTokenAccount(
  h: Harness,
  mint: Address,
  owner: Address,
  amount: bigint,
): Promise<Address> {
  const acct = await createTokenAccount(h, mint, owner);
  if (amount > 0n) await mintTo(h, mint, acct, amount);
  return acct;
}

/** Token balance (base units) of a token account. */
export function tokenBalance(h: Harness, account: Address): bigint {
  const data = h.data(account);
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(64, true);
}

/**
 * A fresh NFT: a 0-decimals mint with supply 1 held by `owner`, whose Metaplex metadata names `collection` as
 * its verified collection (`null`: no metadata account). Returns mint and token account.
 */
export async function createNft(
  h: Harness,
  owner: Address,
  collection: Address | null,
): Promise<{ mint: Address; account: Address }> {
  const mint = await createMint(h, 0);
  const account = await fundedTokenAccount(h, mint, owner, 1n);
  if (collection !== null) await setNftMetadata(h.svm, mint, { key: collection, verified: true });
  return { mint, account };
}

export { TOKEN_PROGRAM_ADDRESS };
