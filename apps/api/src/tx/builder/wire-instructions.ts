import { address, addressBytes, findProgramDerivedAddress } from "@cistern/sdk";
import { AccountRole, type Address, type Instruction } from "@solana/kit";

/** Programs the builder calls besides the lending program. */
export const COMPUTE_BUDGET_PROGRAM = address("ComputeBudget111111111111111111111111111111");
export const SYSTEM_PROGRAM = address("11111111111111111111111111111111");
export const TOKEN_PROGRAM = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
export const ASSOCIATED_TOKEN_PROGRAM = address("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL");
/** Wrapped SOL (native mint). */
export const NATIVE_MINT = address("So11111111111111111111111111111111111111112");

const ro = (a: Address) => ({ address: a, role: AccountRole.READONLY });
const rw = (a: Address) => ({ address: a, role: AccountRole.WRITABLE });
const rwSigner = (a: Address) => ({ address: a, role: AccountRole.WRITABLE_SIGNER });
const roSigner = (a: Address) => ({ address: a, role: AccountRole.READONLY_SIGNER });

function le(value: bigint, bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  let v = value;
  for (let i = 0; i < bytes; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** ComputeBudget SetComputeUnitLimit (tag 2, u32 units). */
export function setComputeUnitLimit(units: number): Instruction {
  return { programAddress: COMPUTE_BUDGET_PROGRAM, data: new Uint8Array([2, ...le(BigInt(units), 4)]) };
}

/** ComputeBudget SetComputeUnitPrice (tag 3, u64 micro-lamports per compute unit). */
export function setComputeUnitPrice(microLamports: bigint): Instruction {
  return { programAddress: COMPUTE_BUDGET_PROGRAM, data: new Uint8Array([3, ...le(microLamports, 8)]) };
}

/** System Transfer (tag 2, u64 lamports). */
export function systemTransfer(from: Address, to: Address, lamports: bigint): Instruction {
  return {
    programAddress: SYSTEM_PROGRAM,
    accounts: [rwSigner(from), rw(to)],
    data: new Uint8Array([...le(2n, 4), ...le(lamports, 8)]),
  };
}

/** Associated token account of `owner` for `mint` (classic SPL Token); memoised with every PDA. */
export async function findAssociatedTokenAddress(owner: Address, mint: Address): Promise<Address> {
  const [ata] = await findProgramDerivedAddress({
    programAddress: ASSOCIATED_TOKEN_PROGRAM,
    seeds: [addressBytes(owner), addressBytes(TOKEN_PROGRAM), addressBytes(mint)],
  });
  return ata;
}

/** Associated Token CreateIdempotent (tag 1): creates the ATA unless it exists; `payer` pays rent. */
export function createAssociatedTokenIdempotent(
  payer: Address,
  ata: Address,
  owner: Address,
  mint: Address,
): Instruction {
  return {
    programAddress: ASSOCIATED_TOKEN_PROGRAM,
    accounts: [rwSigner(payer), rw(ata), ro(owner), ro(mint), ro(SYSTEM_PROGRAM), ro(TOKEN_PROGRAM)],
    data: new Uint8Array([1]),
  };
}

/** SPL Token SyncNative (tag 17): sets a wrapped-SOL account's amount from its lamports. */
export function syncNative(tokenAccount: Address): Instruction {
  return { programAddress: TOKEN_PROGRAM, accounts: [rw(tokenAccount)], data: new Uint8Array([17]) };
}

/** SPL Token CloseAccount (tag 9): closes `tokenAccount`, lamports to `destination` (unwraps SOL). */
export function closeTokenAccount(tokenAccount: Address, destination: Address, owner: Address): Instruction {
  return {
    programAddress: TOKEN_PROGRAM,
    accounts: [rw(tokenAccount), rw(destination), roSigner(owner)],
    data: new Uint8Array([9]),
  };
}
