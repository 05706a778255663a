// SPL Token setup helpers for litesvm tests.
import { type Address, generateKeyPairSigner } from "@solana/kit";
import { getCreateAccountInstruction } from "@solana-program/system";
import {
  getInitializeAccount3Instruction,
  getInitializeMint2Instruction,
  getMintSize,
  getTokenSize,
  TOKEN_PROGRAM_ADDRESS,
} from "@solana-program/token";
import { type Harness, send } from "./svm.ts";

/** Creates a mint with the payer as mint authority. */
export async function createMint(h: Harness, decimals = 6): Promise<Address> {
  const mint = await generateKeyPairSigner();
  const space = BigInt(getMintSize());
  await send(h, [
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

/** Creates a token account for `owner`. */
export async function createTokenAccount(h: Harness, mint: Address, owner: Address): Promise<Address> {
  const acct = await generateKeyPairSigner();
  const space = BigInt(getTokenSize());
  await send(h, [
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

/** Token amount (base units) held by a token account. */
export function tokenAmount(h: Harness, account: Address): bigint {
  const a = h.svm.getAccount(account);
  if (!a.exists) throw new Error(`no account ${account}`);
  return Buffer.from(a.data).readBigUInt64LE(64);
}
