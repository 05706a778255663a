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
  /**
   * Pools and banks read at most `maxAgeMs` ago: the read in flight or just done when there is one, else a new one
   * (for a builder whose pick on the cached snapshot was refused: the snapshot may predate the user's own write).
   */
  recentSnapshot(maxAgeMs: number): Promise<LendingSnapshot>;
  /** Fresh reads (null when missing or not that account type). */
  getConfig(): Promise<ConfigAccount | null>;
  getPool(address: string): Promise<PoolAccount | null>;
  getBank(address: string): Promise<BankAccount | null>;
  /** A pool and a bank read fresh together (one call). */
  getPoolAndBank(pool: string, bank: string): Promise<{ pool: PoolAccount | null; bank: BankAccount | null }>;
  getLoans(addresses: readonly string[]): Promise<(LoanAccount | null)[]>;
  /**
   * A loan read at most `ttlMs` ago (the read in flight or done then, else a new one): for quotes, which a
   * quote-per-keystroke screen asks again and again; builders read fresh (getLoans) and decide on that.
   */
  getRecentLoan(address: string): Promise<LoanAccount | null>;
  /** Loans of a borrower (any status), read with a memcmp filter on the borrower field. */
  getBorrowerLoans(borrower: string): Promise<{ pubkey: string; loan: LoanAccount }[]>;
  /** Every Ongoing loan of the program (a filtered getProgramAccounts). */
  getOngoingLoans(): Promise<{ pubkey: string; loan: LoanAccount }[]>;
  /** Loans still at layout v1 (written before the 1.8 upgrade; Migrate brings them up), of `pool` if given. */
  getV1Loans(pool?: string): Promise<{ pubkey: string; loan: LoanAccount }[]>;
  /** Addresses of the pools still at layout v1, read from the chain now (not the snapshot). */
  getV1Pools(): Promise<string[]>;
  /**
   * Raw accounts (any owner), read after the call: reads asked for while others are in flight go to the node
   * together in the next getMultipleAccounts, so a burst of builds costs the node a few calls, not one each.
   */
  getAccounts(addresses: readonly string[]): Promise<(RpcAccount | null)[]>;
}

type WireAccount = { data: [string, string]; owner: string };
type Keyed = { pubkey: string; account: WireAccount };

function bytesOf(account: WireAccount): Uint8Array {
  return new Uint8Array(Buffer.from(account.data[0], "base64"));
}

function tryDecode<T>(
  decode: (account: RpcAccount) => T,
  account: RpcAccount | null,
  owner: string,
): T | null {
  if (account === null || account.owner !== owner) return null;
  try {
    return decode(account);
  } catch {
    return null;
  }
}

/** Most getMultipleAccounts calls of fresh reads in flight at once; later reads wait and go together. */
const MAX_READS_IN_FLIGHT = 2;
/** Most accounts one getMultipleAccounts asks for (the node's limit). */
const MAX_ACCOUNTS_PER_READ = 100;

/**
 * Fresh account reads batched: every read is sent after it was asked for (so it sees every write confirmed
 * before), but reads asked for in the same event-loop turn, or while MAX_READS_IN_FLIGHT calls are out, share one
 * getMultipleAccounts (each address once).
 */
function createBatchedReader(
  rpc: RpcClient,
): (addresses: readonly string[]) => Promise<(RpcAccount | null)[]> {
  type Want = {
    addresses: readonly string[];
    resolve: (accounts: (RpcAccount | null)[]) => void;
    reject: (error: unknown) => void;
  };
  let queue: Want[] = [];
  let inFlight = 0;
  let scheduled = false;
  const send = (batch: Want[]) => {
    const index = new Map<string, number>();
    for (const want of batch) for (const a of want.addresses) if (!index.has(a)) index.set(a, index.size);
    inFlight++;
    rpc
      .getMultipleAccounts([...index.keys()])
      .then(
        ({ accounts }) => {
          for (const want of batch) want.resolve(want.addresses.map((a) => accounts[index.get(a)!] ?? null));
        },
        (error: unknown) => {
          for (const want of batch) want.reject(error);
        },
      )
      .finally(() => {
        inFlight--;
        flush();
      });
  };
  const flush = () => {
    scheduled = false;
    while (inFlight < MAX_READS_IN_FLIGHT && queue.length > 0) {
      const batch: Want[] = [];
      const seen = new Set<string>();
      let taken = 0;
      for (const want of queue) {
        const added = want.addresses.filter((a) => !seen.has(a));
        if (batch.length > 0 && seen.size + new Set(added).size > MAX_ACCOUNTS_PER_READ) break;
        batch.push(want);
        for (const a of added) seen.add(a);
        taken++;
      }
      queue = queue.slice(taken);
      send(batch);
    }
  };
  return (addresses) =>
    new Promise((resolve, reject) => {
      queue.push({ addresses, resolve, reject });
      if (!scheduled && inFlight < MAX_READS_IN_FLIGHT) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}

/**
 * Decodes with `decode`, reusing the last decoded value of an address whose bytes did not change (a fresh read
 * of a busy pool returns the same 800 bytes to every build between two of its writes). Decoded accounts are
 * shared, never mutated.
 */
function createDecodeMemo<T>(decode: (data: Uint8Array) => T, limit = 10_000): (account: RpcAccount) => T {
  const memo = new Map<string, { data: Uint8Array; value: T }>();
  return (account) => {
    const hit = memo.get(account.pubkey);
    if (hit !== undefined && Buffer.from(hit.data).equals(account.data)) return hit.value;
    const value = decode(account.data);
    if (memo.size >= limit && hit === undefined) memo.delete(memo.keys().next().value!);
    memo.set(account.pubkey, { data: account.data, value });
    return value;
  };
}

/** Creates the reader over `rpc` for `programId`. */
/** How many loans the quotes' recent reads keep (each a decoded Loan: a few hundred bytes). */
const RECENT_LOANS_KEPT = 10_000;

export function createLendingState(rpc: RpcClient, programId: Address, ttlMs: number): LendingState {
  const configPda = findConfigPda(programId);

  const programAccounts = (filters: unknown[]) =>
    requireJsonRpc<{ context: { slot: number }; value: Keyed[] }>(rpc.url, "getProgramAccounts", [
      programId,
      { encoding: "base64", commitment: "confirmed", withContext: true, filters },
    ]);

  const batchedRead = createBatchedReader(rpc);
  const getAccounts = async (addresses: readonly string[]): Promise<(RpcAccount | null)[]> =>
    addresses.length === 0
      ? []
      : addresses.length > MAX_ACCOUNTS_PER_READ
        ? (await rpc.getMultipleAccounts([...addresses])).accounts
        : batchedRead(addresses);
  const decodePool = createDecodeMemo(decodePoolAccount);
  const decodeBank = createDecodeMemo(decodeBankAccount);
  const asPool = (account: RpcAccount | null | undefined) =>
    tryDecode(decodePool, account ?? null, programId);
  const asBank = (account: RpcAccount | null | undefined) =>
    tryDecode(decodeBank, account ?? null, programId);

  async function readConfig(): Promise<ConfigAccount | null> {
    const [address] = await configPda;
    const [account] = await getAccounts([address]);
    return tryDecode((a) => decodeConfigAccount(a.data), account ?? null, programId);
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

  // The newest read begun, shared by recentSnapshot's callers (a failed read is not kept).
  let newest: { startedAtMs: number; read: Promise<LendingSnapshot> } | undefined;
  const trackedLoad = () => {
    const read = load();
    newest = { startedAtMs: Date.now(), read };
    read.catch(() => {
      if (newest?.read === read) newest = undefined;
    });
    return read;
  };
  // Loans read for quotes, by address, in the order read (the oldest dropped first past RECENT_LOANS_KEPT).
  const recentLoans = new Map<string, { atMs: number; read: Promise<LoanAccount | null> }>();
  const readRecentLoan = (address: string) => {
    const kept = recentLoans.get(address);
    if (kept !== undefined && Date.now() - kept.atMs <= ttlMs) return kept.read;
    const read = getAccounts([address]).then(([a]) =>
      tryDecode((l) => decodeLoanAccount(l.data), a ?? null, programId),
    );
    recentLoans.delete(address);
    recentLoans.set(address, { atMs: Date.now(), read });
    read.catch(() => {
      if (recentLoans.get(address)?.read === read) recentLoans.delete(address);
    });
    if (recentLoans.size > RECENT_LOANS_KEPT) recentLoans.delete(recentLoans.keys().next().value!);
    return read;
  };
  // Fresh for ttlMs; until 5 x ttlMs the old snapshot answers while one reload runs in the background.
  let snapshot = cachedFor(ttlMs, ttlMs * 5, trackedLoad);

  return {
    programId,
    snapshot: () => snapshot(),
    invalidate() {
      snapshot = cachedFor(ttlMs, ttlMs * 5, trackedLoad);
    },
    recentSnapshot(maxAgeMs) {
      return newest !== undefined && Date.now() - newest.startedAtMs <= maxAgeMs
        ? newest.read
        : trackedLoad();
    },
    getConfig: readConfig,
    async getPool(address) {
      const [account] = await getAccounts([address]);
      return asPool(account);
    },
    async getBank(address) {
      const [account] = await getAccounts([address]);
      return asBank(account);
    },
    async getPoolAndBank(pool, bank) {
      const [poolAccount, bankAccount] = await getAccounts([pool, bank]);
      return { pool: asPool(poolAccount), bank: asBank(bankAccount) };
    },
    async getLoans(addresses) {
      const accounts = await getAccounts(addresses);
      return accounts.map((a) => tryDecode((l) => decodeLoanAccount(l.data), a, programId));
    },
    getRecentLoan: readRecentLoan,
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
