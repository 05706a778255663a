import { rmSync } from "node:fs";
import {
  MARGINFI_ERROR,
  MARGINFI_PROGRAM,
  marginfiBorrow,
  PYTH_RECEIVER_PROGRAM,
  readPublishTime,
} from "@cistern/localnet";
import { type Address, address, getAddressDecoder, type Instruction, type KeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChainClient } from "../src/chain-client.ts";
import { getKeysDir, loadOrCreateKeyFile } from "../src/key-files.ts";
import { ensureMarginfi, MARGINFI_DEMO_MARKET, type MarginfiResult } from "../src/marginfi.ts";
import { ensureLocalnetLamports } from "../src/seed-demo.ts";
import { fetchData, startTestLocalnet, tempDir } from "./helpers.ts";

/** I80F48 raw at `offset` (signed 128-bit little endian). */
function i80f48At(data: Uint8Array, offset: number): bigint {
  const v = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return (v.getBigInt64(offset + 8, true) << 64n) | v.getBigUint64(offset, true);
}
const ONE = 1n << 48n;

describe("marginfi on the localnet (bootstrap, real marginfi transactions)", () => {
  let net: Awaited<ReturnType<typeof startTestLocalnet>>;
  const dataDir = tempDir("marginfi");
  let admin: KeyPairSigner;
  let chain: ReturnType<typeof createChainClient>;
  let first: MarginfiResult;

  beforeAll(async () => {
    net = await startTestLocalnet();
    chain = createChainClient({ rpcUrl: net.rpcUrl, wsUrl: net.wsUrl, cluster: "localnet" });
    admin = await loadOrCreateKeyFile(`${getKeysDir(dataDir)}/admin.json`);
    await ensureLocalnetLamports(chain, admin.address, 100_000_000_000_000n, 200_000_000_000_000n);
    first = await ensureMarginfi({ chain, dataDir, admin, demo: true });
  });
  afterAll(async () => {
    await net?.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("creates a group the admin owns and a USDC and a SOL bank on the Pyth price accounts the localnet posts", async () => {
    expect(first.groupAction).toBe("created");
    expect(first.marketAction).toBe("created");
    const group = await fetchData(net.rpc, first.group);
    expect(group).not.toBeNull();
    expect(getAddressDecoder().decode(group!.subarray(8, 40))).toBe(admin.address); // MarginfiGroup.admin
    for (const b of first.banks) {
      expect(b.action).toBe("created");
      const info = await net.rpc.getAccountInfo(b.bank, { encoding: "base64" }).send();
      expect(info.value?.owner).toBe(MARGINFI_PROGRAM);
      const data = await fetchData(net.rpc, b.bank);
      expect(data!.length).toBe(1864);
      expect(data![609]).toBe(3); // OracleSetup::PythPushOracle
      expect(data![608]).toBe(1); // Operational
      const oracle = await net.rpc.getAccountInfo(b.oracle, { encoding: "base64" }).send();
      expect(oracle.value?.owner).toBe(PYTH_RECEIVER_PROGRAM);
    }
  });

  it("has borrowers, so each bank's deposits earn marginfi's curve", async () => {
    const usdc = first.banks.find((b) => b.symbol === "USDC")!;
    const data = (await fetchData(net.rpc, usdc.bank))!;
    const liabilityShares = i80f48At(data, 256);
    const assetShares = i80f48At(data, 272);
    expect(assetShares / ONE).toBe(MARGINFI_DEMO_MARKET.usdcDeposit);
    expect(liabilityShares / ONE).toBe(MARGINFI_DEMO_MARKET.usdcBorrow);
  });

  it("keeps the oracles current every few slots", async () => {
    const sol = first.banks.find((b) => b.symbol === "SOL")!;
    const before = readPublishTime((await fetchData(net.rpc, sol.oracle))!);
    await net.advanceClock(30);
    await new Promise((r) => setTimeout(r, 1500));
    const after = readPublishTime((await fetchData(net.rpc, sol.oracle))!);
    expect(after - before).toBeGreaterThanOrEqual(30n);
  });

  it("a stale oracle is refused by marginfi as on mainnet (StaleOracle); fresh again, the same borrow lands", async () => {
    const usdc = first.banks.find((b) => b.symbol === "USDC")!;
    const sol = first.banks.find((b) => b.symbol === "SOL")!;
    const staker = await loadOrCreateKeyFile(`${getKeysDir(dataDir)}/marginfi-demo-sol-account.json`);
    const destination = address(
      (
        await chain.rpc
          .getTokenAccountsByOwner(admin.address, { mint: usdc.mint }, { encoding: "base64" })
          .send()
      ).value[0]!.pubkey,
    );
    const borrow = (): Instruction => {
      const ix = marginfiBorrow({
        group: first.group,
        account: staker.address,
        authority: admin.address,
        bank: usdc.bank,
        destination,
        amount: 1_000_000n,
        health: [sol, usdc].map((b) => ({ bank: b.bank, oracle: b.oracle })),
      });
      return {
        ...ix,
        accounts: ix.accounts?.map((m) => (m.address === admin.address ? { ...m, signer: admin } : m)),
      };
    };
    net.marginfiOracles.pause();
    await net.advanceClock(120);
    // a client that knows the lending program (as the bootstrap's, once its keys are read): marginfi's 6017 is
    // named as marginfi's, never as the lending program's 6017 (InvalidPoolParams)
    const knowing = createChainClient({
      rpcUrl: net.rpcUrl,
      wsUrl: net.wsUrl,
      cluster: "localnet",
      lendingProgramId: () => admin.address,
    });
    for (const client of [chain, knowing]) {
      const refused = await client
        .send("borrow on a stale oracle", [borrow()], admin)
        .catch((e: unknown) => e);
      const text = String((refused as Error).message);
      expect(text).toContain(
        `custom program error ${MARGINFI_ERROR.StaleOracle} of program ${MARGINFI_PROGRAM}`,
      );
      expect(text).not.toContain("InvalidPoolParams");
    }
    await net.marginfiOracles.resume();
    await expect(chain.send("borrow on a fresh oracle", [borrow()], admin)).resolves.toBeTypeOf("string");
  });

  it("a second run changes nothing", async () => {
    const again = await ensureMarginfi({ chain, dataDir, admin, demo: true });
    expect(again.groupAction).toBe("unchanged");
    expect(again.marketAction).toBe("unchanged");
    expect(again.banks.map((b) => b.action)).toEqual(["unchanged", "unchanged"]);
    expect(again.banks.map((b) => b.bank as Address)).toEqual(first.banks.map((b) => b.bank));
  });
});
