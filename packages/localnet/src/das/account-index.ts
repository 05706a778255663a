/**
 * The uncompressed half of the DAS index: SPL token accounts, Token Metadata `Metadata` accounts and Core assets,
 * kept in memory by address and by owner. Built from one scan of the three programs' accounts the first time DAS
 * is asked, then kept by re-reading every account a transaction or an admin write may have changed (the chain calls
 * {@link AccountAssetIndex.touch} with the same addresses as its owner index), so it follows the chain, whoever
 * moved the asset. A burn keeps the asset as last seen (its metadata and last holder, a Core asset's account) so
 * DAS answers it `burnt: true`, as a hosted DAS does; a Core asset's account left by a burn (one byte, key
 * Uninitialized) is known burnt even when the index first sees it after a restart.
 */
import { decodeMetadata } from "@cistern/sdk";
import type { Account, LiteSvm } from "litesvm/dist/internal";
import { decodeBase58, encodeBase58 } from "../base58.ts";
import { TOKEN_METADATA_PROGRAM_ADDRESS } from "../demo-world.ts";
import {
  decodeMint,
  decodeTokenAccount,
  isTokenAccountData,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
} from "../token-layout.ts";
import { MPL_CORE_PROGRAM } from "../vendored-programs.ts";
import { type CoreAsset, type CoreCollection, decodeCoreAsset, decodeCoreCollection } from "./core-asset.ts";

/** Token Metadata `Key::MetadataV1`. */
const KEY_METADATA_V1 = 4;

/** What the index keeps of a token account. */
export interface IndexedTokenAccount {
  address: string;
  mint: string;
  owner: string;
  amount: bigint;
  delegate: string | null;
  delegatedAmount: bigint;
  closeAuthority: string | null;
  frozen: boolean;
  program: string;
}

/** What the index keeps of a Metadata account (by mint). */
export type IndexedMetadata = ReturnType<typeof decodeMetadata> & { address: string };

type Entry =
  | { kind: "token"; value: IndexedTokenAccount }
  | { kind: "metadata"; value: IndexedMetadata }
  | { kind: "core"; value: CoreAsset }
  | { kind: "coreCollection"; value: CoreCollection };

/** A burnt asset as the index last saw it before the burn closed its accounts. */
export interface BurntTokenMetadata {
  meta: IndexedMetadata;
  /** The last token account that held it (its owner is the asset's last owner). */
  lastHolder: IndexedTokenAccount | null;
}

const WATCHED = [TOKEN_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_METADATA_PROGRAM_ADDRESS, MPL_CORE_PROGRAM];

function addTo(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key) ?? new Set<string>();
  map.set(key, set);
  set.add(value);
}

function removeFrom(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) map.delete(key);
}

export class AccountAssetIndex {
  private built = false;
  private entries = new Map<string, Entry>();
  private tokenAccountsByOwner = new Map<string, Set<string>>();
  private tokenAccountsByMint = new Map<string, Set<string>>();
  private metadataByMint = new Map<string, string>();
  private coreByOwner = new Map<string, Set<string>>();
  /** The last token account that held each mint a balance (kept when the account empties or closes). */
  private lastHolderByMint = new Map<string, IndexedTokenAccount>();
  private burntMetadata = new Map<string, BurntTokenMetadata>();
  private burntCore = new Map<string, CoreAsset | null>();
  /** Order in which assets were first seen (DAS `sortBy: created`). */
  private firstSeen = new Map<string, number>();
  private seen = 0;

  constructor(private readonly svm: LiteSvm) {}

  /** Scans the watched programs' accounts once (at start, or the first DAS request). */
  build(): void {
    if (this.built) return;
    this.built = true;
    for (const program of WATCHED)
      for (const entry of this.svm.getProgramAccounts(decodeBase58(program)))
        this.put(encodeBase58(entry.address), entry.account());
  }

  /** Re-reads accounts that may have changed (a transaction's writable keys, admin writes). */
  touch(addresses: Iterable<Uint8Array>): void {
    if (!this.built) return;
    for (const key of addresses) {
      const address = encodeBase58(key);
      const before = this.entries.get(address);
      this.remove(address);
      const account = this.svm.getAccount(key);
      if (account) this.put(address, account);
      const after = this.entries.get(address);
      if (before?.kind === "metadata" && after?.kind !== "metadata") {
        const mint = encodeBase58(before.value.mint);
        this.burntMetadata.set(mint, {
          meta: before.value,
          lastHolder: this.lastHolderByMint.get(mint) ?? null,
        });
      } else if (before?.kind === "core" && after?.kind !== "core") this.burntCore.set(address, before.value);
    }
  }

  private remove(address: string): void {
    const entry = this.entries.get(address);
    if (!entry) return;
    this.entries.delete(address);
    if (entry.kind === "token") {
      removeFrom(this.tokenAccountsByOwner, entry.value.owner, address);
      removeFrom(this.tokenAccountsByMint, entry.value.mint, address);
    } else if (entry.kind === "metadata") {
      const mint = encodeBase58(entry.value.mint);
      if (this.metadataByMint.get(mint) === address) this.metadataByMint.delete(mint);
    } else if (entry.kind === "core") removeFrom(this.coreByOwner, entry.value.owner, address);
  }

  private put(address: string, account: Account): void {
    if (account.lamports() === 0n && account.data().length === 0) return;
    const owner = encodeBase58(account.owner());
    const data = account.data();
    if (owner === TOKEN_PROGRAM || owner === TOKEN_2022_PROGRAM) {
      if (!isTokenAccountData(data, owner)) return;
      const t = decodeTokenAccount(data);
      if (t.state === "uninitialized") return;
      const value: IndexedTokenAccount = {
        address,
        mint: t.mint,
        owner: t.owner,
        amount: t.amount,
        delegate: t.delegate,
        delegatedAmount: t.delegatedAmount,
        closeAuthority: t.closeAuthority,
        frozen: t.state === "frozen",
        program: owner,
      };
      this.entries.set(address, { kind: "token", value });
      addTo(this.tokenAccountsByOwner, t.owner, address);
      addTo(this.tokenAccountsByMint, t.mint, address);
      if (t.amount > 0n) this.lastHolderByMint.set(t.mint, value);
      this.markSeen(t.mint);
    } else if (owner === TOKEN_METADATA_PROGRAM_ADDRESS) {
      if (data[0] !== KEY_METADATA_V1) return;
      let value: IndexedMetadata;
      try {
        value = { ...decodeMetadata(data), address };
      } catch {
        return;
      }
      this.entries.set(address, { kind: "metadata", value });
      this.metadataByMint.set(encodeBase58(value.mint), address);
      this.burntMetadata.delete(encodeBase58(value.mint));
    } else if (owner === MPL_CORE_PROGRAM) {
      // a burnt asset's account: one byte, Key::Uninitialized
      if (data.length === 1 && data[0] === 0 && !this.burntCore.has(address))
        this.burntCore.set(address, null);
      const collection = decodeCoreCollection(data);
      if (collection) {
        this.entries.set(address, { kind: "coreCollection", value: collection });
        return;
      }
      const value = decodeCoreAsset(data);
      if (!value) return;
      this.entries.set(address, { kind: "core", value });
      this.burntCore.delete(address);
      addTo(this.coreByOwner, value.owner, address);
      this.markSeen(address);
    }
  }

  private markSeen(id: string): void {
    if (!this.firstSeen.has(id)) this.firstSeen.set(id, this.seen++);
  }

  /** When an asset was first seen by this index (smaller is older). */
  seenOrder(id: string): number {
    return this.firstSeen.get(id) ?? Number.MAX_SAFE_INTEGER;
  }

  /** Token accounts a wallet owns. */
  tokenAccountsOf(owner: string): IndexedTokenAccount[] {
    this.build();
    return [...(this.tokenAccountsByOwner.get(owner) ?? [])].map(
      (a) => (this.entries.get(a) as { value: IndexedTokenAccount }).value,
    );
  }

  /** Token accounts of a mint holding a balance. */
  holdersOf(mint: string): IndexedTokenAccount[] {
    this.build();
    return [...(this.tokenAccountsByMint.get(mint) ?? [])]
      .map((a) => (this.entries.get(a) as { value: IndexedTokenAccount }).value)
      .filter((t) => t.amount > 0n);
  }

  /** The Metadata account of a mint. */
  metadataOf(mint: string): IndexedMetadata | null {
    this.build();
    const address = this.metadataByMint.get(mint);
    return address === undefined ? null : (this.entries.get(address) as { value: IndexedMetadata }).value;
  }

  /** A Core asset by its address. */
  coreAsset(id: string): CoreAsset | null {
    this.build();
    const entry = this.entries.get(id);
    return entry?.kind === "core" ? entry.value : null;
  }

  /** The Core assets a wallet owns (addresses). */
  coreAssetsOf(owner: string): string[] {
    this.build();
    return [...(this.coreByOwner.get(owner) ?? [])];
  }

  /** A Core collection by its address. */
  coreCollection(id: string): CoreCollection | null {
    this.build();
    const entry = this.entries.get(id);
    return entry?.kind === "coreCollection" ? entry.value : null;
  }

  /** Every Core asset's address. */
  coreAssetIds(): string[] {
    this.build();
    return [...this.entries].filter(([, e]) => e.kind === "core").map(([a]) => a);
  }

  /** Every mint that has a Metadata account. */
  metadataMints(): string[] {
    this.build();
    return [...this.metadataByMint.keys()];
  }

  /** The token accounts of a mint, whatever their balance. */
  tokenAccountsOfMint(mint: string): IndexedTokenAccount[] {
    this.build();
    return [...(this.tokenAccountsByMint.get(mint) ?? [])].map(
      (a) => (this.entries.get(a) as { value: IndexedTokenAccount }).value,
    );
  }

  /** The last token account that held a mint a balance (also after it emptied or closed). */
  lastHolderOf(mint: string): IndexedTokenAccount | null {
    this.build();
    return this.lastHolderByMint.get(mint) ?? null;
  }

  /** A burnt Token Metadata asset (its metadata closed by the burn), by mint. */
  burntTokenMetadata(mint: string): BurntTokenMetadata | null {
    this.build();
    return this.burntMetadata.get(mint) ?? null;
  }

  /** Mints of burnt Token Metadata assets. */
  burntTokenMetadataMints(): string[] {
    this.build();
    return [...this.burntMetadata.keys()];
  }

  /**
   * A burnt Core asset: as last seen, or null when only its burnt account is known (first seen after a restart);
   * undefined when the address is no burnt Core asset.
   */
  burntCoreAsset(id: string): CoreAsset | null | undefined {
    this.build();
    return this.burntCore.has(id) ? this.burntCore.get(id)! : undefined;
  }

  /** Addresses of burnt Core assets. */
  burntCoreIds(): string[] {
    this.build();
    return [...this.burntCore.keys()];
  }

  /** A mint's supply and decimals, read from the chain (null when it is not a mint). */
  mint(mint: string): { supply: bigint; decimals: number; program: string } | null {
    const account = this.svm.getAccount(decodeBase58(mint));
    if (!account) return null;
    const program = encodeBase58(account.owner());
    if ((program !== TOKEN_PROGRAM && program !== TOKEN_2022_PROGRAM) || account.data().length < 82)
      return null;
    const m = decodeMint(account.data());
    return { supply: m.supply, decimals: m.decimals, program };
  }
}
