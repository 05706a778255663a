import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Keypair, LAMPORTS_PER_SOL, PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import { afterEach, describe, expect, it } from "vitest";
import { startLocalnet } from "../src/index.ts";
import { rpc, tempDataDir } from "./helpers.ts";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");

async function balance(url: string, address: string): Promise<number> {
  return ((await rpc(url, "getBalance", [address])).result as { value: number }).value;
}

async function sendTransfer(url: string, from: Keypair, to: string, lamports: number): Promise<string> {
  const bh = ((await rpc(url, "getLatestBlockhash")).result as { value: { blockhash: string } }).value
    .blockhash;
  const tx = new Transaction({ feePayer: from.publicKey, recentBlockhash: bh }).add(
    SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: new PublicKey(to), lamports }),
  );
  tx.sign(from);
  const r = await rpc(url, "sendTransaction", [tx.serialize().toString("base64"), { encoding: "base64" }]);
  if (r.error) throw new Error(`sendTransaction failed: ${r.error.message}`);
  return r.result as string;
}

describe("persistence", () => {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("a clean restart keeps balances, signatures, history, slot and clock offset", async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const payer = Keypair.generate();
    const to = Keypair.generate().publicKey.toBase58();
    let net = await startLocalnet({ rpcPort: 0, dataDir, seed: false, slotMs: 50 });
    await net.airdrop(payer.publicKey.toBase58(), 3n * BigInt(LAMPORTS_PER_SOL));
    const sigs: string[] = [];
    for (let i = 0; i < 5; i++) sigs.push(await sendTransfer(net.rpcUrl, payer, to, 1_000_000 + i));
    await net.advanceClock(7200);
    const payerBefore = await balance(net.rpcUrl, payer.publicKey.toBase58());
    const slotBefore = (await rpc(net.rpcUrl, "getSlot")).result as number;
    const genesis = (await rpc(net.rpcUrl, "getGenesisHash")).result;
    const faucet = net.faucetAddress;
    await net.close();

    net = await startLocalnet({ rpcPort: 0, dataDir, seed: false, slotMs: 50 });
    try {
      expect(net.faucetAddress).toBe(faucet);
      expect((await rpc(net.rpcUrl, "getGenesisHash")).result).toBe(genesis);
      expect(await balance(net.rpcUrl, to)).toBe(5_000_010);
      expect(await balance(net.rpcUrl, payer.publicKey.toBase58())).toBe(payerBefore);
      expect((await rpc(net.rpcUrl, "getSlot")).result as number).toBeGreaterThan(slotBefore);
      const statuses = (await rpc(net.rpcUrl, "getSignatureStatuses", [sigs])).result as {
        value: ({ err: unknown } | null)[];
      };
      expect(statuses.value.every((s) => s !== null && s.err === null)).toBe(true);
      const tx = (await rpc(net.rpcUrl, "getTransaction", [sigs[2], { encoding: "json" }])).result as {
        meta: { logMessages: string[] };
        slot: number;
        blockTime: number;
      };
      expect(tx.meta.logMessages[0]).toMatch(/invoke \[1\]/);
      expect((await rpc(net.rpcUrl, "getBlockTime", [tx.slot])).result).toBe(tx.blockTime);
      const history = (await rpc(net.rpcUrl, "getSignaturesForAddress", [to])).result as {
        signature: string;
      }[];
      expect(history.map((h) => h.signature)).toEqual([...sigs].reverse());
      const blockTime = (await rpc(net.rpcUrl, "getBlockTime", [(await rpc(net.rpcUrl, "getSlot")).result]))
        .result as number;
      expect(blockTime - Date.now() / 1000).toBeGreaterThan(7100);
      // Signatures stay unique after restart: resending an old transaction does not execute it again.
      const dup = await rpc(net.rpcUrl, "getSignatureStatuses", [[sigs[0]]]);
      expect((dup.result as { value: unknown[] }).value[0]).not.toBeNull();
    } finally {
      await net.close();
    }

    net = await startLocalnet({ rpcPort: 0, dataDir, seed: false, reset: true });
    try {
      expect(await balance(net.rpcUrl, to)).toBe(0);
      expect(net.faucetAddress).toBe(faucet);
      expect(
        ((await rpc(net.rpcUrl, "getSignatureStatuses", [sigs])).result as { value: unknown[] }).value,
      ).toEqual(sigs.map(() => null));
    } finally {
      await net.close();
    }
  });

  it("an unreadable snapshot falls back to replaying the whole ledger", async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const payer = Keypair.generate();
    const to = Keypair.generate().publicKey.toBase58();
    let net = await startLocalnet({ rpcPort: 0, dataDir, slotMs: 50 });
    await net.airdrop(payer.publicKey.toBase58(), BigInt(LAMPORTS_PER_SOL));
    const sig = await sendTransfer(net.rpcUrl, payer, to, 3_000_000);
    await net.faucet(to);
    const expected = await balance(net.rpcUrl, to);
    await net.close();
    writeFileSync(join(dataDir, "snapshot.bin"), "garbage");
    net = await startLocalnet({ rpcPort: 0, dataDir, slotMs: 50 });
    try {
      expect(await balance(net.rpcUrl, to)).toBe(expected);
      expect(
        ((await rpc(net.rpcUrl, "getSignatureStatuses", [[sig]])).result as { value: unknown[] }).value[0],
      ).not.toBeNull();
      expect(existsSync(join(dataDir, "snapshot.bin.corrupt"))).toBe(true);
    } finally {
      await net.close();
    }
  });

  it("a SIGKILLed localnet loses no acknowledged transaction", async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "src/cli.ts", "--port", "0", "--data-dir", dataDir, "--no-seed", "--slot-ms", "50"],
      { cwd: packageDir, stdio: ["ignore", "pipe", "pipe"] },
    );
    children.push(child);
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      const t = setTimeout(() => reject(new Error(`localnet did not start: ${out}`)), 45_000);
      child.stdout!.on("data", (d: Buffer) => {
        out += d.toString();
        const m = out.match(/RPC URL:\s+(http:\/\/\S+)/);
        if (m) {
          clearTimeout(t);
          resolve(m[1]!);
        }
      });
      child.stderr!.on("data", (d: Buffer) => {
        out += d.toString();
      });
    });
    const payer = Keypair.generate();
    const to = Keypair.generate().publicKey.toBase58();
    const airdrop = await rpc(url, "requestAirdrop", [payer.publicKey.toBase58(), 2 * LAMPORTS_PER_SOL]);
    expect(airdrop.error).toBeUndefined();
    const fund = await rpc(url, "localnet_fundWallet", [to, { lamports: "1000000000" }]);
    expect(fund.result).toBe(true);
    const sigs: string[] = [];
    for (let i = 0; i < 25; i++) sigs.push(await sendTransfer(url, payer, to, 10_000 + i));
    const expected = 1_000_000_000 + 25 * 10_000 + (24 * 25) / 2;
    expect(await balance(url, to)).toBe(expected);
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));

    const net = await startLocalnet({ rpcPort: 0, dataDir, seed: false });
    try {
      expect(await balance(net.rpcUrl, to)).toBe(expected);
      const statuses = (await rpc(net.rpcUrl, "getSignatureStatuses", [[airdrop.result, ...sigs]]))
        .result as {
        value: ({ err: unknown } | null)[];
      };
      expect(statuses.value.filter((s) => s?.err === null)).toHaveLength(26);
      expect(await balance(net.rpcUrl, payer.publicKey.toBase58())).toBe(
        2 * LAMPORTS_PER_SOL - (expected - 1_000_000_000) - 25 * 5000,
      );
    } finally {
      await net.close();
    }
  });
});
