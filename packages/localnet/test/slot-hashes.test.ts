import { rmSync } from "node:fs";
import {
  AddressLookupTableProgram,
  Keypair,
  LAMPORTS_PER_SOL,
  type PublicKey,
  Transaction,
} from "@solana/web3.js";
import { afterEach, describe, expect, it } from "vitest";
import { type LocalnetHandle, startLocalnet } from "../src/index.ts";
import { rpc, tempDataDir } from "./helpers.ts";

async function currentSlot(url: string): Promise<number> {
  return (await rpc(url, "getSlot")).result as number;
}

/** Creates an address lookup table for `authority` at the node's current slot; returns its address. */
async function createLookupTable(net: LocalnetHandle, authority: Keypair): Promise<PublicKey> {
  const recentSlot = await currentSlot(net.rpcUrl);
  const [ix, table] = AddressLookupTableProgram.createLookupTable({
    authority: authority.publicKey,
    payer: authority.publicKey,
    recentSlot,
  });
  const bh = ((await rpc(net.rpcUrl, "getLatestBlockhash")).result as { value: { blockhash: string } }).value;
  const tx = new Transaction({ feePayer: authority.publicKey, recentBlockhash: bh.blockhash }).add(ix);
  tx.sign(authority);
  const sent = await rpc(net.rpcUrl, "sendTransaction", [
    tx.serialize().toString("base64"),
    { encoding: "base64" },
  ]);
  if (sent.error) throw new Error(`CreateLookupTable failed: ${sent.error.message}`);
  return table;
}

async function owner(url: string, address: PublicKey): Promise<string | null> {
  const info = (await rpc(url, "getAccountInfo", [address.toBase58(), { encoding: "base64" }])).result as {
    value: { owner: string } | null;
  };
  return info.value?.owner ?? null;
}

describe("SlotHashes sysvar", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("lists recent slots, so lookup tables can be created in any slot, and survive a restart", async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const authority = Keypair.generate();
    let net = await startLocalnet({ rpcPort: 0, dataDir, seed: false, slotMs: 50 });
    let tables: PublicKey[];
    try {
      await net.airdrop(authority.publicKey.toBase58(), 2n * BigInt(LAMPORTS_PER_SOL));
      const first = await createLookupTable(net, authority);
      const slot = await currentSlot(net.rpcUrl);
      while ((await currentSlot(net.rpcUrl)) === slot) await new Promise((r) => setTimeout(r, 20));
      const second = await createLookupTable(net, authority);
      tables = [first, second];
      expect(first.equals(second)).toBe(false);
      for (const t of tables)
        expect(await owner(net.rpcUrl, t)).toBe(AddressLookupTableProgram.programId.toBase58());
    } finally {
      await net.close();
    }
    // The ledger replays both creations over the snapshot with the slots they were made in.
    net = await startLocalnet({ rpcPort: 0, dataDir, seed: false, slotMs: 50 });
    try {
      for (const t of tables)
        expect(await owner(net.rpcUrl, t)).toBe(AddressLookupTableProgram.programId.toBase58());
    } finally {
      await net.close();
    }
  });
});
