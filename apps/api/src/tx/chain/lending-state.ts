import {
  ACCOUNT_TAG,
  type BankAccount,
  type ConfigAccount,
  decodeBankAccount,
  decodeConfigAccount,
  decodeLoanAccount,
  decodePoolAccount,
  findConfigPda,
  type LoanAccount,
  type PoolAccount,
} from "@cistern/sdk";
import { type Address, getBase58Decoder } from "@solana/kit";
import type { RpcAccount, RpcClient } from "../../solana/rpc-client.ts";
import { cachedFor } from "./chain-clock.ts";
import { requireJsonRpc } from "./json-rpc.ts";

/** A getProgramAccounts filter on the account type's tag byte (any layout version: a Pool or Loan may be v1). */
function ofType(type: keyof typeof ACCOUNT_TAG) {
  return { memcmp: { offset: 0, bytes: getBase58Decoder().decode(new Uint8Array([ACCOUNT_TAG[type]])) } };
}

/** Pools and banks of the lending program at one slot (what quotes are computed from). */
export interface LendingSnapshot {
  slot: number;
  /** The program's config (paused flag, fee share); null before it is initialised. */
  config: ConfigAccount | null;
  pools: ReadonlyMap<string, PoolAccount>;
  banks: ReadonlyMap<string, BankAccount>;
}

/** Reads lending program accounts: a cached pools/banks snapshot for quotes, fresh reads for builders. */
export interface LendingState {
  readonly programId: Address;
  /** Pools and banks, at most `ttlMs` old (one getProgramAccounts per kind; concurrent callers share it). */
  snapshot(): Promise<LendingSnapshot>;
  /** Forgets the snapshot (the next call reads the chain). */
  invalidate(): void;
  /** Fresh reads (null when missing or not that account type). */
  getConfig(): Promise<ConfigAccount | null>;
  getPool(address: string): Promise<PoolAccount | null>;
  getBank(address: string): Promise<BankAccount | null>;
  getLoans(addresses: readonly string[]): Promise<(LoanAccount | null)[]>;
  /** Loans of a borrower (any status), read with a memcmp filter on the borrower field. */
  getBorrowerLoans(borrower: string): Promise<{ pubkey: string; loan: LoanAccount }[]>;
  /** Every Ongoing loan of the program (a filtered getProgramAccounts). */
  getOngoingLoans(): Promise<{ pubkey: string; loan: LoanAccount }[]>;
  /** Loans still at layout v1 (written before the 1.8 upgrade; Migrate brings them up), of `pool` if given. */
  getV1Loans(pool?: string): Promise<{ pubkey: string; loan: LoanAccount }[]>;
  /** Addresses of the pools still at layout v1, read from the chain now (not the snapshot). */
  getV1Pools(): Promise<string[]>;
  /** Raw accounts (any owner). */
  getAccounts(addresses: readonly string[]): Promise<(RpcAccount | null)[]>;
}

type WireAccount = { data: [string, string]; owner: string };
type Keyed = { pubkey: string; account: WireAccount };

function bytesOf(account: WireAccount): Uint8Array {
  return new Uint8Array(Buffer.from(account.data[0], "base64"));
}

function tryDecode<T>(decode: (data: Uint8Array) => T, account: RpcAccount | null, owner: string): T | null {
  if (account === null || account.owner !== owner) return null;
  try {
    return decode(account.data);
  } catch {
    return null;
  }
}

/** Creates the reader over `rpc` for `programId`. */
export function createLendingState(rpc: RpcClient, programId: Address, ttlMs: number): LendingState {
  const configPda = findConfigPda(programId);

  const programAccounts = (filters: unknown[]) =>
    requireJsonRpc<{ context: { slot: number }; value: Keyed[] }>(rpc.url, "getProgramAccounts", [
      programId,
      { encoding: "base64", commitment: "confirmed", withContext: true, filters },
    ]);

  const getAccounts = async (addresses: readonly string[]) =>
    addresses.length === 0 ? [] : (await rpc.getMultipleAccounts([...addresses])).accounts;

  async function readConfig(): Promise<ConfigAccount | null> {
    const [address] = await configPda;
    const [account] = await getAccounts([address]);
    return tryDecode(decodeConfigAccount, account ?? null, programId);
  }

  async function load(): Promise<LendingSnapshot> {
    const [pools, banks, config] = await Promise.all([
      programAccounts([ofType("Pool")]),
      programAccounts([ofType("Bank")]),
      readConfig(),
    ]);
    const poolMap = new Map<string, PoolAccount>();
    for (const { pubkey, account } of pools.value) {
      try {
        poolMap.set(pubkey, decodePoolAccount(bytesOf(account)));
      } catch {
        // not a pool (closed or foreign data): skipped
      }
    }
    const bankMap = new Map<string, BankAccount>();
    for (const { pubkey, account } of banks.value) {
      try {
        bankMap.set(pubkey, decodeBankAccount(bytesOf(account)));
      } catch {
        // skipped
      }
    }
    return { slot: Math.min(pools.context.slot, banks.context.slot), config, pools: poolMap, banks: bankMap };
  }

  async function loansWhere(filters: unknown[]): Promise<{ pubkey: string; loan: LoanAccount }[]> {
    const result = await programAccounts(filters);
    const out: { pubkey: string; loan: LoanAccount }[] = [];
    for (const { pubkey, account } of result.value) {
      try {
        out.push({ pubkey, loan: decodeLoanAccount(bytesOf(account)) });
      } catch {
        // not a loan of this layout: skipped
      }
    }
    return out;
  }

  // Fresh for ttlMs; until 5 x ttlMs the old snapshot answers while one reload runs in the background.
  let snapshot = cachedFor(ttlMs, ttlMs * 5, load);

  return {
    programId,
    snapshot: () => snapshot(),
    invalidate() {
      snapshot = cachedFor(ttlMs, ttlMs * 5, load);
    },
    getConfig: readConfig,
    async getPool(address) {
      const [account] = await getAccounts([address]);
      return tryDecode(decodePoolAccount, account ?? null, programId);
    },
    async getBank(address) {
      const [account] = await getAccounts([address]);
      return tryDecode(decodeBankAccount, account ?? null, programId);
    },
    async getLoans(addresses) {
      const accounts = await getAccounts(addresses);
      return accounts.map((a) => tryDecode(decodeLoanAccount, a, programId));
    },
    getBorrowerLoans: (borrower) => loansWhere([ofType("Loan"), { memcmp: { offset: 8, bytes: borrower } }]),
    // status byte at offset 4 (header 2, bump, escrow bump); "1" is base58 of the byte 0 (Ongoing)
    // version byte at offset 1 ("2" is base58 of the byte 1); pool at offset 40
    getV1Pools: async () =>
      (await programAccounts([ofType("Pool"), { memcmp: { offset: 1, bytes: "2" } }])).value.map(
        (a) => a.pubkey,
      ),
    getV1Loans: (pool) =>
      loansWhere([
        ofType("Loan"),
        { memcmp: { offset: 1, bytes: "2" } },
        ...(pool === undefined ? [] : [{ memcmp: { offset: 40, bytes: pool } }]),
      ]),
    getOngoingLoans: () => loansWhere([ofType("Loan"), { memcmp: { offset: 4, bytes: "1" } }]),
    getAccounts,
  };
}
