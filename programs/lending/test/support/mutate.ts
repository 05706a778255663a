/** Builders of adversarial variants of an instruction (swapped accounts, roles or data bytes). */
import {
  type AccountMeta,
  AccountRole,
  type AccountSignerMeta,
  type Address,
  type Instruction,
} from "@solana/kit";

/** Replaces account `index` with `address` (same role unless `role` is given; drops an embedded signer). */
export function swapAccount(
  ix: Instruction,
  index: number,
  address: Address,
  role?: AccountRole,
): Instruction {
  const accounts = [...(ix.accounts ?? [])] as AccountMeta[];
  const old = accounts[index];
  if (!old) throw new Error(`no account ${index}`);
  accounts[index] = { address, role: role ?? old.role };
  return { ...ix, accounts };
}

/** Replaces the meta at `index` as-is (e.g. a signer meta carrying another kit signer). */
export function setMeta(ix: Instruction, index: number, meta: AccountMeta | AccountSignerMeta): Instruction {
  const accounts = [...(ix.accounts ?? [])] as AccountMeta[];
  accounts[index] = meta;
  return { ...ix, accounts };
}

/** Same account without its signer (or writable) flag. */
export function demote(
  ix: Instruction,
  index: number,
  role: AccountRole = AccountRole.READONLY,
): Instruction {
  const meta = ix.accounts?.[index];
  if (!meta) throw new Error(`no account ${index}`);
  return setMeta(ix, index, { address: meta.address, role });
}

/** Drops trailing accounts so only `count` remain. */
export function truncateAccounts(ix: Instruction, count: number): Instruction {
  return { ...ix, accounts: (ix.accounts ?? []).slice(0, count) };
}

/** Copy of the instruction with its data changed by `edit`. */
export function patchData(ix: Instruction, edit: (data: Uint8Array, view: DataView) => void): Instruction {
  const data = new Uint8Array(ix.data ?? []);
  edit(data, new DataView(data.buffer));
  return { ...ix, data };
}
