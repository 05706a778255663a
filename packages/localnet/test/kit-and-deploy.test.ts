import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  address,
  airdropFactory,
  appendTransactionMessageInstruction,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  createTransactionMessage,
  generateKeyPairSigner,
  getSignatureFromTransaction,
  lamports,
  pipe,
  sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from "@solana/kit";
import { getTransferSolInstruction } from "@solana-program/system";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalnet } from "../src/index.ts";
import { rpc, startTestLocalnet } from "./helpers.ts";

describe("@solana/kit against localnet", () => {
  let net: Awaited<ReturnType<typeof startTestLocalnet>>;
  beforeAll(async () => {
    net = await startTestLocalnet({ seed: false });
  });
  afterAll(async () => {
    await net.cleanup();
  });

  it("airdrops, sends and confirms a transfer, reads balances and the transaction", async () => {
    const kitRpc = createSolanaRpc(net.rpcUrl);
    const subs = createSolanaRpcSubscriptions(net.wsUrl);
    const payer = await generateKeyPairSigner();
    const recipient = await generateKeyPairSigner();
    await airdropFactory({ rpc: kitRpc, rpcSubscriptions: subs })({
      recipientAddress: payer.address,
      lamports: lamports(2_000_000_000n),
      commitment: "confirmed",
    });
    expect((await kitRpc.getBalance(payer.address).send()).value).toBe(2_000_000_000n);
    const { value: latest } = await kitRpc.getLatestBlockhash().send();
    const tx = await signTransactionMessageWithSigners(
      pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(payer, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
        (m) =>
          appendTransactionMessageInstruction(
            getTransferSolInstruction({
              source: payer,
              destination: recipient.address,
              amount: 300_000_000n,
            }),
            m,
          ),
      ),
    );
    await sendAndConfirmTransactionFactory({ rpc: kitRpc, rpcSubscriptions: subs })(tx as never, {
      commitment: "confirmed",
    });
    expect((await kitRpc.getBalance(recipient.address).send()).value).toBe(300_000_000n);
    const got = await kitRpc
      .getTransaction(getSignatureFromTransaction(tx), {
        maxSupportedTransactionVersion: 0,
        encoding: "json",
      })
      .send();
    expect(got?.meta?.fee).toBe(5000n);
    expect(got?.version).toBe(0);
    const info = await kitRpc.getAccountInfo(recipient.address, { encoding: "base64" }).send();
    expect((info.value as unknown as { rentEpoch: bigint }).rentEpoch).toBe(18446744073709551615n);
  });
});

const lendingSo = join(import.meta.dirname, "../../../programs/lending/build/lending.so");

describe("program deployment at start", () => {
  it("deploys through the upgradeable loader, is callable, and is left alone when unchanged", async () => {
    const { tempDataDir } = await import("./helpers.ts");
    const dataDir = tempDataDir();
    let net = await startLocalnet({
      rpcPort: 0,
      dataDir,
      seed: false,
      slotMs: 100,
      programs: [{ soPath: lendingSo }],
    });
    const programId = net.programs[0]!.programId;
    try {
      expect(net.programs[0]!.action).toBe("deployed");
      expect(existsSync(join(dataDir, "program-lending-keypair.json"))).toBe(true);
      const acct = (await rpc(net.rpcUrl, "getAccountInfo", [programId, { encoding: "base64" }])).result as {
        value: { executable: boolean; owner: string };
      };
      expect(acct.value).toMatchObject({
        executable: true,
        owner: "BPFLoaderUpgradeab1e11111111111111111111111",
      });
      // Calling it with empty instruction data runs the program (it rejects the data, not the call).
      const kitRpc = createSolanaRpc(net.rpcUrl);
      const payer = await generateKeyPairSigner();
      await net.airdrop(payer.address, 1_000_000_000n);
      const { value: latest } = await kitRpc.getLatestBlockhash().send();
      const tx = await signTransactionMessageWithSigners(
        pipe(
          createTransactionMessage({ version: 0 }),
          (m) => setTransactionMessageFeePayerSigner(payer, m),
          (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
          (m) =>
            appendTransactionMessageInstruction(
              { programAddress: address(programId), accounts: [], data: new Uint8Array() },
              m,
            ),
        ),
      );
      const { getBase64EncodedWireTransaction } = await import("@solana/kit");
      const sim = (
        await rpc(net.rpcUrl, "simulateTransaction", [
          getBase64EncodedWireTransaction(tx),
          { encoding: "base64" },
        ])
      ).result as {
        value: { logs: string[] };
      };
      expect(sim.value.logs[0]).toBe(`Program ${programId} invoke [1]`);
    } finally {
      await net.close();
    }
    net = await startLocalnet({ rpcPort: 0, dataDir, seed: false, programs: [{ soPath: lendingSo }] });
    try {
      expect(net.programs).toEqual([{ programId, soPath: lendingSo, action: "unchanged" }]);
    } finally {
      await net.close();
    }
    // Changed bytes (same ELF plus trailing data the loader ignores) go through Upgrade.
    const fs = await import("node:fs");
    const changed = join(dataDir, "lending.so");
    fs.writeFileSync(changed, Buffer.concat([fs.readFileSync(lendingSo), Buffer.alloc(64, 0xab)]));
    net = await startLocalnet({
      rpcPort: 0,
      dataDir,
      seed: false,
      slotMs: 100,
      programs: [{ soPath: changed }],
    });
    try {
      expect(net.programs).toEqual([{ programId, soPath: changed, action: "upgraded" }]);
      const acct = (await rpc(net.rpcUrl, "getAccountInfo", [programId, { encoding: "base64" }])).result as {
        value: { data: [string, string] };
      };
      // UpgradeableLoaderState::Program { programdata_address }: tag 2 then the ProgramData address.
      const programData = Buffer.from(acct.value.data[0], "base64").subarray(4, 36);
      const { getBase58Decoder } = await import("@solana/kit");
      const pd = (
        await rpc(net.rpcUrl, "getAccountInfo", [
          getBase58Decoder().decode(programData),
          { encoding: "base64" },
        ])
      ).result as { value: { data: [string, string] } };
      const code = Buffer.from(pd.value.data[0], "base64").subarray(45);
      const original = fs.readFileSync(lendingSo);
      expect(code.subarray(0, original.length + 64)).toEqual(
        Buffer.concat([original, Buffer.alloc(64, 0xab)]),
      );
    } finally {
      await net.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
