/**
 * An off-chain copy of one SPL Account Compression concurrent Merkle tree, rebuilt from its change-log events: each
 * event carries the new nodes from the changed leaf up to the root (heap indices: root 1, leaves 2^depth + i), so
 * applying them in sequence order gives every node of the tree, hence any leaf's proof, in O(depth).
 */
import { keccak_256 } from "@noble/hashes/sha3.js";

/** One node of a change-log path. */
export interface PathNode {
  node: Uint8Array;
  /** Heap index (root 1). */
  index: number;
}

const ZERO = new Uint8Array(32);
const emptyNodes: Uint8Array[] = [ZERO];

/** The hash of an empty subtree of height `level` (level 0: an empty leaf, all zeros). */
export function emptyNode(level: number): Uint8Array {
  while (emptyNodes.length <= level) {
    const below = emptyNodes[emptyNodes.length - 1]!;
    emptyNodes.push(hashPair(below, below));
  }
  return emptyNodes[level]!;
}

/** keccak256(left || right), the tree's node hash. */
export function hashPair(left: Uint8Array, right: Uint8Array): Uint8Array {
  const h = keccak_256.create();
  h.update(left);
  h.update(right);
  return h.digest();
}

export class MerkleTreeCopy {
  private nodes = new Map<number, Uint8Array>();
  /** Sequence number of the last change applied (the tree's own count of successful operations). */
  seq = 0n;
  /** Changes whose sequence number did not follow the previous one (events this index never saw). */
  gaps = 0;

  constructor(
    readonly address: string,
    readonly depth: number,
  ) {}

  /** Applies one change-log event (path from leaf to root). */
  apply(path: PathNode[], seq: bigint): void {
    if (path.length !== this.depth + 1)
      throw new Error(`change log of depth ${path.length - 1} on a tree of ${this.depth}`);
    if (this.seq !== 0n && seq !== this.seq + 1n) this.gaps++;
    for (const p of path) this.nodes.set(p.index, p.node);
    this.seq = seq;
  }

  get root(): Uint8Array {
    return this.nodes.get(1) ?? emptyNode(this.depth);
  }

  /** The leaf hash at `leafIndex` (zeros when empty). */
  leaf(leafIndex: number): Uint8Array {
    return this.nodes.get(2 ** this.depth + leafIndex) ?? ZERO;
  }

  /** The sibling hashes from the leaf up to (not including) the root: `depth` nodes. */
  proof(leafIndex: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    let index = 2 ** this.depth + leafIndex;
    for (let level = 0; level < this.depth; level++) {
      out.push(this.nodes.get(index ^ 1) ?? emptyNode(level));
      index = Math.floor(index / 2);
    }
    return out;
  }
}
