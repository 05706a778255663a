import type { Account, LiteSvm } from "litesvm/dist/internal";
import { decodeBase58, encodeBase58 } from "./base58.ts";

/**
 * Accounts by owning program, for getProgramAccounts without a scan of every account. An owner is indexed
 * the first time it is asked for (one full LiteSVM scan); from then on every account a transaction or an
 * admin write may have changed is re-read through {@link touch}, so the set follows the chain exactly.
 */
export class OwnerIndex {
  /** owner (base58) -> addresses (base58) it owns; only owners asked for are here. */
  private byOwner = new Map<string, Set<string>>();
  /** address -> its owner, for addresses held in an indexed owner's set. */
  private ownerOf = new Map<string, string>();
  /** Full scans done (one per owner, the first time it is asked for). */
  fullScans = 0;

  constructor(private readonly svm: LiteSvm) {}

  /** The addresses `owner` owns now (base58). */
  addresses(owner: string): ReadonlySet<string> {
    let set = this.byOwner.get(owner);
    if (!set) {
      set = new Set();
      this.fullScans++;
      for (const entry of this.svm.getProgramAccounts(decodeBase58(owner))) {
        if (!exists(entry.account())) continue;
        const address = encodeBase58(entry.address);
        set.add(address);
        this.ownerOf.set(address, owner);
      }
      this.byOwner.set(owner, set);
    }
    return set;
  }

  /** Re-reads the owner of accounts that may have changed (a transaction's writable keys, admin writes). */
  touch(addresses: Iterable<Uint8Array>): void {
    if (this.byOwner.size === 0) return;
    for (const key of addresses) {
      const address = encodeBase58(key);
      const account = this.svm.getAccount(key);
      const owner = account && exists(account) ? encodeBase58(account.owner()) : undefined;
      const before = this.ownerOf.get(address);
      if (before === owner) continue;
      if (before !== undefined) {
        this.byOwner.get(before)?.delete(address);
        this.ownerOf.delete(address);
      }
      const set = owner === undefined ? undefined : this.byOwner.get(owner);
      if (set && owner !== undefined) {
        set.add(address);
        this.ownerOf.set(address, owner);
      }
    }
  }
}

/** A closed account (no lamports, no data) is gone, as on a validator. */
function exists(account: Account): boolean {
  return account.lamports() > 0n || account.data().length > 0;
}
