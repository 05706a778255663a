/**
 * The compressed half of the DAS index: every tree's nodes (from its change logs) and every Bubblegum V1 leaf (from
 * the leaf schema events), fed with each landed transaction in ledger order, at replay and live. Nothing is written
 * at mint time: a leaf moved by any program or wallet through Bubblegum shows here, and a leaf emptied by a change
 * log (a burn) is marked burnt.
 */
import type { TxRecord } from "../history.ts";
import type { CompressedMetadata } from "./bubblegum-metadata.ts";
import { type ChangeLogEvent, type LeafEvent, readCompressionEvents } from "./compression-events.ts";
import { MerkleTreeCopy } from "./merkle-tree.ts";

/** One compressed asset as the index knows it. */
export interface CompressedLeaf {
  id: string;
  tree: string;
  leafIndex: number;
  owner: string;
  delegate: string;
  nonce: bigint;
  dataHash: Uint8Array;
  creatorHash: Uint8Array;
  leafHash: Uint8Array;
  /** The tree's sequence number at this leaf's last change. */
  seq: bigint;
  /**
   * As the last instruction that stated it (a mint, a collection verification) said, when it hashes to the leaf's
   * data hash; null when no such instruction was seen or the leaf's data hash changed otherwise.
   */
  metadata: CompressedMetadata | null;
  burnt: boolean;
  /** Order of minting across trees (DAS `sortBy: created`). */
  created: number;
  /** The transactions that changed it, oldest first (DAS getAssetSignatures). */
  signatures: { signature: string; instruction: string; slot: number }[];
}

const equal = (a: Uint8Array, b: Uint8Array) => Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;
const isZero = (a: Uint8Array) => a.every((b) => b === 0);

export class CompressedIndex {
  readonly trees = new Map<string, MerkleTreeCopy>();
  private leaves = new Map<string, CompressedLeaf>();
  /** `${tree}:${leafIndex}` -> asset id. */
  private byPosition = new Map<string, string>();
  private byOwner = new Map<string, Set<string>>();
  private created = 0;

  /** Applies a landed transaction's compression events. */
  apply(record: TxRecord): void {
    const tx = { signature: record.signature, slot: record.slot };
    for (const group of readCompressionEvents(record)) {
      for (const log of group.changeLogs) this.applyChangeLog(log, tx);
      for (const leaf of group.leaves) this.applyLeaf(leaf, group.changeLogs, tx);
    }
  }

  private applyChangeLog(log: ChangeLogEvent, tx: { signature: string; slot: number }): void {
    const tree = this.trees.get(log.tree) ?? new MerkleTreeCopy(log.tree, log.path.length - 1);
    this.trees.set(log.tree, tree);
    tree.apply(log.path, log.seq);
    const id = this.byPosition.get(`${log.tree}:${log.leafIndex}`);
    const leaf = id === undefined ? undefined : this.leaves.get(id);
    if (leaf && isZero(log.path[0]!.node) && !leaf.burnt) {
      leaf.burnt = true;
      leaf.seq = log.seq;
      leaf.signatures.push({ ...tx, instruction: log.instruction });
      this.setOwner(leaf, null);
    }
  }

  private applyLeaf(event: LeafEvent, logs: ChangeLogEvent[], tx: { signature: string; slot: number }): void {
    const log = logs.find((l) => equal(l.path[0]!.node, event.leafHash));
    if (!log) return; // a leaf schema without the change that wrote it: not on any tree
    let leaf = this.leaves.get(event.id);
    if (!leaf) {
      leaf = {
        id: event.id,
        tree: log.tree,
        leafIndex: log.leafIndex,
        owner: event.owner,
        delegate: event.delegate,
        nonce: event.nonce,
        dataHash: event.dataHash,
        creatorHash: event.creatorHash,
        leafHash: event.leafHash,
        seq: log.seq,
        metadata: null,
        burnt: false,
        created: this.created++,
        signatures: [],
      };
      this.leaves.set(event.id, leaf);
      this.byPosition.set(`${log.tree}:${log.leafIndex}`, event.id);
    }
    this.setOwner(leaf, event.owner);
    leaf.delegate = event.delegate;
    leaf.dataHash = event.dataHash;
    leaf.creatorHash = event.creatorHash;
    leaf.leafHash = event.leafHash;
    leaf.seq = log.seq;
    leaf.burnt = false;
    if (leaf.signatures.at(-1)?.signature !== tx.signature)
      leaf.signatures.push({ ...tx, instruction: event.instruction });
    const m = event.metadata;
    if (m && equal(m.dataHash, event.dataHash) && equal(m.creatorHash, event.creatorHash)) leaf.metadata = m;
    else if (leaf.metadata && !equal(leaf.metadata.dataHash, event.dataHash)) leaf.metadata = null;
  }

  private setOwner(leaf: CompressedLeaf, owner: string | null): void {
    const before = this.byOwner.get(leaf.owner);
    before?.delete(leaf.id);
    if (before?.size === 0) this.byOwner.delete(leaf.owner);
    if (owner === null) return;
    leaf.owner = owner;
    const set = this.byOwner.get(owner) ?? new Set<string>();
    this.byOwner.set(owner, set);
    set.add(leaf.id);
  }

  /** Every compressed asset the index knows (burnt ones too). */
  all(): CompressedLeaf[] {
    return [...this.leaves.values()];
  }

  leaf(id: string): CompressedLeaf | null {
    return this.leaves.get(id) ?? null;
  }

  /** The unburnt leaves a wallet owns. */
  leavesOf(owner: string): CompressedLeaf[] {
    return [...(this.byOwner.get(owner) ?? [])].map((id) => this.leaves.get(id)!);
  }

  /** The proof of a leaf against its tree's current root. */
  proof(
    leaf: CompressedLeaf,
  ): { root: Uint8Array; proof: Uint8Array[]; nodeIndex: number; leaf: Uint8Array } | null {
    const tree = this.trees.get(leaf.tree);
    if (!tree) return null;
    return {
      root: tree.root,
      proof: tree.proof(leaf.leafIndex),
      nodeIndex: 2 ** tree.depth + leaf.leafIndex,
      leaf: tree.leaf(leaf.leafIndex),
    };
  }
}
