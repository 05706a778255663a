/**
 * Two API processes over one PostgreSQL (the machine's server): both build and send, one indexer leads through
 * the advisory lock; when its process is killed (SIGKILL) the other takes over from the persisted cursor and the
 * read side ends identical to the chain.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type LocalnetHandle, startLocalnet } from "@cistern/localnet";
import {
  decodeLoanAccount,
  decodeSwapPool,
  findBankPda,
  getAddSwapLiquidityInstruction,
  getInitializeConfigInstruction,
  getInitializeSwapPoolInstruction,
  getSetVenuesInstruction,
  readKeypairFile,
} from "@cistern/sdk";
import {
  type Address,
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  type Instruction,
  type KeyPairSigner,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findAssociatedTokenAddress } from "../../src/tx/builder/wire-instructions.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";
import {
  type Built,
  fundedWallet,
  JTO_MINT,
  signAll,
  TEST_POOL_LIMITS,
  USDC_MINT,
} from "../tx/support/tx-world.ts";

const REPO = resolve(import.meta.dirname, "../../../..");
const LENDING_SO = join(REPO, "programs/lending/build/lending.so");
const SWAP_VENUE_SO = join(REPO, "programs/swap-venue/build/swap-venue.so");
const DAY = 86_400;

interface ApiProcess {
  child: ChildProcess;
  url: string;
  lines: string[];
  /** Resolves once the process logs that its indexer leads. */
  leading: Promise<void>;
}

function startApiProcess(env: Record<string, string>): Promise<ApiProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", join(REPO, "apps/api/src/main.ts")], {
    cwd: join(REPO, "apps/api"),
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  let markLeading: () => void = () => {};
  const leading = new Promise<void>((r) => {
    markLeading = r;
  });
  return new Promise((resolvePromise, reject) => {
    const onLine = (chunk: Buffer) => {
      for (const line of chunk.toString().split("\n").filter(Boolean)) {
        lines.push(line);
        if (line.includes("indexer leading")) markLeading();
        const started = /Cistern API on (http:\/\/[\d.:]+)/.exec(line);
        if (started) resolvePromise({ child, url: started[1]!, lines, leading });
      }
    };
    child.stdout!.on("data", onLine);
    child.stderr!.on("data", onLine);
    child.once("exit", (code) => reject(new Error(`API process exited (${code}):\n${lines.join("\n")}`)));
  });
}

async function post(base: string, path: string, body: unknown) {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Builds on `base`, signs, sends through the same process's sender; returns the build. */
async function buildSignSend(
  base: string,
  path: string,
  body: unknown,
  signers: KeyPairSigner[],
): Promise<Built> {
  const b = await post(base, path, body);
  if (b.status !== 200) throw new Error(`${path} answered ${b.status}: ${JSON.stringify(b.body)}`);
  const built = b.body as unknown as Built;
  const sender = built.kind === "NormalCoSigned" ? "/send-cos-transaction" : "/send-transaction";
  for (const t of await signAll(built, signers)) {
    const s = await post(base, sender, { transaction: t, blockHeight: built.lastValidBlockHeight });
    if (s.status !== 200 || s.body.result === null) throw new Error(`${sender}: ${JSON.stringify(s.body)}`);
  }
  return built;
}

/** Signs and sends `instructions` straight to the cluster (the API sends only what it built) and waits. */
async function sendDirect(rpcUrl: string, instructions: Instruction[], payer: KeyPairSigner): Promise<void> {
  const rpc = createSolanaRpc(rpcUrl);
  const { value: blockhash } = await rpc.getLatestBlockhash({ commitment: "confirmed" }).send();
  const tx = await pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
    (m) => signTransactionMessageWithSigners(m),
  );
  await rpc.sendTransaction(getBase64EncodedWireTransaction(tx), { encoding: "base64" }).send();
  const signature = getSignatureFromTransaction(tx);
  for (let i = 0; i < 200; i++) {
    const { value } = await rpc.getSignatureStatuses([signature]).send();
    if (value[0]?.err) throw new Error(`transaction failed: ${JSON.stringify(value[0].err)}`);
    if (value[0]?.confirmationStatus === "confirmed" || value[0]?.confirmationStatus === "finalized") return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("transaction not confirmed");
}

describe("scale-out: two API processes over one PostgreSQL", () => {
  let net: LocalnetHandle;
  let t: TestDatabase;
  const dataDir = mkdtempSync(join(tmpdir(), "cistern-scale-"));
  const processes: ApiProcess[] = [];

  beforeAll(async () => {
    net = await startLocalnet({
      rpcPort: 0,
      dataDir: join(dataDir, "chain"),
      slotMs: 80,
      programs: [{ soPath: LENDING_SO }, { soPath: SWAP_VENUE_SO }],
    });
    t = await createTestDatabase("postgres");
    const env = {
      DATABASE_URL: t.url!,
      DATA_DIR: join(dataDir, "api"),
      SOLANA_RPC_URL: net.rpcUrl,
      LENDING_PROGRAM_ID: net.programs[0]!.programId,
      API_PORT: "0",
      INDEXER_RECONCILE_MS: "1000",
      KEEPER: "off",
      DELEGATION_KEEPER: "off",
      LOG_FORMAT: "json",
      LOG_LEVEL: "info",
      TX_REBROADCAST_MS: "500",
    };
    // the first process creates the localnet oracle key in the shared data dir; the second reads it
    processes.push(await startApiProcess(env));
    processes.push(await startApiProcess(env));
    const admin = await readKeypairFile(net.faucetKeypairPath);
    await net.fundWallet(admin.address, { lamports: 10_000_000_000n });
    const oracle = await readKeypairFile(join(dataDir, "api/keys/oracle.json"));
    await sendDirect(
      net.rpcUrl,
      [
        await getInitializeConfigInstruction({
          programAddress: net.programs[0]!.programId as Address,
          admin,
          oracle: oracle.address,
          treasury: (await readKeypairFile(net.faucetKeypairPath)).address,
          protocolFeeBps: 2000,
        }),
      ],
      admin,
    );
    // JTO is valued from the chain: the local swap venue pinned, with a JTO/USDC pool at 2.5 USDC a JTO
    const venue = net.programs[1]!.programId as Address;
    const init = await getInitializeSwapPoolInstruction({
      programAddress: venue,
      payer: admin,
      mintX: JTO_MINT,
      mintY: USDC_MINT,
      feeBps: 30,
    });
    await sendDirect(
      net.rpcUrl,
      [
        await getSetVenuesInstruction({
          programAddress: net.programs[0]!.programId as Address,
          admin,
          swapProgram: venue,
        }),
        init,
      ],
      admin,
    );
    await net.fundWallet(admin.address, {
      tokens: [
        { mint: JTO_MINT, amount: 100_000_000_000_000n },
        { mint: USDC_MINT, amount: 250_000_000_000n },
      ],
    });
    const rpc = createSolanaRpc(net.rpcUrl);
    const { value } = await rpc
      .getAccountInfo(init.pool, { encoding: "base64", commitment: "confirmed" })
      .send();
    const pool = { ...decodeSwapPool(Buffer.from(value!.data[0], "base64")), address: init.pool };
    const jtoIsA = pool.mintA === JTO_MINT;
    await sendDirect(
      net.rpcUrl,
      [
        await getAddSwapLiquidityInstruction({
          programAddress: venue,
          depositor: admin,
          pool,
          depositorTokenA: await findAssociatedTokenAddress(admin.address, pool.mintA),
          depositorTokenB: await findAssociatedTokenAddress(admin.address, pool.mintB),
          amountA: jtoIsA ? 100_000_000_000_000n : 250_000_000_000n,
          amountB: jtoIsA ? 250_000_000_000n : 100_000_000_000_000n,
        }),
      ],
      admin,
    );
    // both processes have read the pool (their valuation reads it every slot)
    for (const p of processes)
      for (let i = 0; ; i++) {
        const { prices } = (await (await fetch(`${p.url}/prices`)).json()) as {
          prices: Record<string, unknown>;
        };
        if (prices[JTO_MINT] !== undefined) break;
        if (i > 100) throw new Error(`no JTO price from ${p.url}: ${JSON.stringify(prices)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
  }, 120_000);

  afterAll(async () => {
    for (const p of processes) p.child.kill("SIGKILL");
    await t?.drop();
    await net?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("both processes take work; killing the indexer's leader hands the index to the other, which matches the chain", async () => {
    const [a, b] = processes as [ApiProcess, ApiProcess];
    const lender = (await fundedWallet(net)).signer;
    const borrower = (await fundedWallet(net)).signer;
    // a lender's pool through process A, two loans through process B
    await buildSignSend(
      a.url,
      "/defi/create-pool",
      {
        bank: (await findBankPda(net.programs[0]!.programId as Address, lender.address, USDC_MINT))[0],
        owner: lender.address,
        amount: "1000000000",
        mint: USDC_MINT,
        seed: "1",
        param: {
          apr: 2000,
          limits: TEST_POOL_LIMITS,
          currencies: [{ currency: JTO_MINT, currencyLtv: 6000, exposure: 10000 }],
        },
      },
      [lender],
    );
    const take = (base: string) =>
      buildSignSend(
        base,
        "/defi/take-loan",
        {
          borrower: borrower.address,
          collateralMint: JTO_MINT,
          collateralAmount: "20000000000",
          duration: 3 * DAY,
          amount: "10000000",
        },
        [borrower],
      );
    const loans = [(await take(b.url)).metadata.loan as string, (await take(b.url)).metadata.loan as string];
    // one of them leads the indexer: kill it without warning
    const leader = await Promise.race([a.leading.then(() => a), b.leading.then(() => b)]);
    const survivor = leader === a ? b : a;
    leader.child.kill("SIGKILL");
    // work goes on through the survivor: a repay and a third loan
    await buildSignSend(survivor.url, "/defi/repay-loan", { borrower: borrower.address, loans: [loans[0]] }, [
      borrower,
    ]);
    loans.push((await take(survivor.url)).metadata.loan as string);
    await survivor.leading;
    // the survivor's read side ends identical to the chain: every loan, with its status
    const rpc = createSolanaRpc(net.rpcUrl);
    const onChain = new Map<string, string>();
    for (const loan of loans) {
      const { value } = await rpc
        .getAccountInfo(loan as Address, { encoding: "base64", commitment: "confirmed" })
        .send();
      onChain.set(loan, decodeLoanAccount(Buffer.from(value!.data[0], "base64")).status.toLowerCase());
    }
    await expect
      .poll(
        async () => {
          const listed = (await (
            await fetch(`${survivor.url}/loan/user?pubkey=${borrower.address}`)
          ).json()) as {
            loans: { pubkey: string; status: string }[];
          };
          return new Map(listed.loans.map((l) => [l.pubkey, l.status]));
        },
        { timeout: 30_000, interval: 500 },
      )
      .toEqual(onChain);
    expect([...onChain.values()].sort()).toEqual(["ongoing", "ongoing", "repaid"]);
    // every event once: three loans taken, one repaid, none lost or applied twice across the handover
    const events = await t.db.query<{ loan: string; kind: string }>(
      "SELECT loan, kind FROM loan_activity ORDER BY loan, kind",
    );
    expect(events.map((e) => `${e.kind}:${e.loan}`).sort()).toEqual(
      [...loans.map((l) => `taken:${l}`), `repaid:${loans[0]}`].sort(),
    );
  }, 120_000);
});
