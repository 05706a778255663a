import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DEMO_WORLD, getAssociatedTokenAddress, type LocalnetHandle, startLocalnet } from "@cistern/localnet";
import { getPriorityFeeOptions } from "@cistern/protocol";
import {
  decodeSwapPool,
  findBankPda,
  findPoolPda,
  getAddSwapLiquidityInstruction,
  getInitializeConfigInstruction,
  getInitializeLendingReserveInstruction,
  getInitializeSwapPoolInstruction,
  getSetVenuesInstruction,
  NO_VENUE,
  readKeypairFile,
} from "@cistern/sdk";
import {
  type Address,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  type Instruction,
  type KeyPairSigner,
  partiallySignTransaction,
} from "@solana/kit";
import { getTransferInstruction } from "@solana-program/token";
import type { FastifyInstance } from "fastify";
import { createApp } from "../../../src/app.ts";
import { loadConfig } from "../../../src/config/config.ts";
import { createIndexer, type Indexer } from "../../../src/indexer/indexer.ts";
import { registerTxRoutes, type TxContext } from "../../../src/tx/index.ts";
import { createFixedValuationSources, DEMO_PRICES, type FixedPrices } from "../../helpers/fixed-valuation.ts";
import { createTestDatabase, type TestDatabase } from "../../helpers/test-database.ts";

export const USDC_MINT = DEMO_WORLD.tokens.find((t) => t.symbol === "USDC")!.mint as Address;
export const SOL_MINT = DEMO_WORLD.tokens.find((t) => t.symbol === "SOL")!.mint as Address;
export const JTO_MINT = DEMO_WORLD.tokens.find((t) => t.symbol === "JTO")!.mint as Address;
export const DAY_SECONDS = 86_400;
/** Pool limits most tx tests use: 1 to 30 days, 1 to 100,000 USD. */
export const TEST_POOL_LIMITS = {
  minDuration: DAY_SECONDS,
  maxDuration: 30 * DAY_SECONDS,
  maxAmountUsd: 100_000,
  minAmountUsd: 1,
};

/**
 * /nft/update-pool's body for `owner`'s nft-pool of `collections` (50% LTV, full exposure) open to every wallet (no
 * conditions, no whitelist), at `apr` bps for loans, with mortgages at `mortgageApr` bps when given and auto-sell when
 * asked.
 */
export function nftPoolUpdateBody(input: {
  pool: string;
  owner: string;
  apr: number;
  limits: { minDuration: number; maxDuration: number; maxAmountUsd: number; minAmountUsd: number };
  collections: readonly string[];
  mortgageApr?: number;
  autoSell?: boolean;
}) {
  return {
    pool: input.pool,
    owner: input.owner,
    ...(input.mortgageApr === undefined ? {} : { enableMortgage: true }),
    ...(input.autoSell ? { enableAutoSell: true } : {}),
    param: {
      apr: input.apr,
      loanApr: input.apr,
      ...(input.mortgageApr === undefined ? {} : { mortgageApr: input.mortgageApr }),
      limits: input.limits,
      conditions: {
        minAge: "0",
        minLoan: "0",
        minVolume: "0",
        liquidationThreshold: 0,
        isEnabled: 0,
        isWhitelistEnabled: 0,
        whitelist: "11111111111111111111111111111111",
        whitelistAddresses: [],
      },
      liquidation: {
        isAutoSellEnabled: input.autoSell === true,
        loanLiquidation: 1000,
        mortgageLiquidation: 2000,
      },
      collections: input.collections.map((collection) => ({
        collection,
        collectionLtv: 5000,
        exposure: 10000,
      })),
    },
  };
}

export const SO_PATH = resolve(import.meta.dirname, "../../../../../programs/lending/build/lending.so");
const LENDING_VENUE_SO_PATH = resolve(
  import.meta.dirname,
  "../../../../../programs/lending-venue/build/lending-venue.so",
);
/** Yearly rate of the test USDC reserve, basis points. */
export const TEST_RESERVE_RATE_BPS = 800;
const NFT_MARKET_SO_PATH = resolve(
  import.meta.dirname,
  "../../../../../programs/nft-market/build/nft-market.so",
);
const SWAP_VENUE_SO_PATH = resolve(
  import.meta.dirname,
  "../../../../../programs/swap-venue/build/swap-venue.so",
);

/** A running localnet with the lending program deployed and configured, and the API with the tx routes. */
export interface TxWorld {
  net: LocalnetHandle;
  app: FastifyInstance;
  tx: TxContext;
  programId: Address;
  treasury: Address;
  dataDir: string;
  /** The local swap venue pinned in Venues, with a JTO/USDC pool (only with `swapVenue`). */
  swapVenue?: { programId: Address; pool: Address };
  /** The local lending venue pinned in Venues, with a USDC reserve (only with `lendingVenue`). */
  lendingVenue?: { programId: Address; reserve: Address; vault: Address };
  /** The local NFT market pinned in Venues (only with `nftMarket`). */
  nftMarket?: Address;
  close(): Promise<void>;
}

/** The builder's answer as JSON. */
export interface Built {
  transactions: string[];
  kind: string;
  lastValidBlockHeight: number;
  metadata: Record<string, unknown>;
}

/** Signs every transaction of a build with `signers` (partial: co-signers stay empty). */
export async function signAll(built: Built, signers: KeyPairSigner[]): Promise<string[]> {
  return Promise.all(
    built.transactions.map(async (b64) => {
      const tx = getTransactionDecoder().decode(Buffer.from(b64, "base64"));
      const signed = await partiallySignTransaction(
        signers.map((s) => s.keyPair),
        tx,
      );
      return getBase64EncodedWireTransaction(signed);
    }),
  );
}

/** POSTs JSON and returns status + body. */
export async function post(app: FastifyInstance, url: string, payload: unknown) {
  const res = await app.inject({ method: "POST", url, payload: payload as object });
  return { status: res.statusCode, body: res.json() as Record<string, unknown> };
}

/** Builds with `url`, signs with `signers`, sends through the sender route of the kind; returns the send body. */
export async function buildSignSend(
  app: FastifyInstance,
  url: string,
  payload: unknown,
  signers: KeyPairSigner[],
): Promise<{
  built: Built;
  sent: { result: string | null; error?: { message: string }; signatures?: string[] };
}> {
  const b = await post(app, url, payload);
  if (b.status !== 200) throw new Error(`${url} answered ${b.status}: ${JSON.stringify(b.body)}`);
  const built = b.body as unknown as Built;
  const signed = await signAll(built, signers);
  const bundle = built.kind === "Bundle" || built.kind === "BundleCoSigned";
  const path = {
    Normal: "/send-transaction",
    NormalCoSigned: "/send-cos-transaction",
    Bundle: "/send-bundle",
    BundleCoSigned: "/send-cos-bundle",
  }[built.kind]!;
  if (bundle) {
    const s = await post(app, path, { transactions: signed, blockHeight: built.lastValidBlockHeight });
    if (s.status !== 200) throw new Error(`${path} answered ${s.status}: ${JSON.stringify(s.body)}`);
    return { built, sent: s.body as never };
  }
  let last: Record<string, unknown> = {};
  for (const t of signed) {
    const s = await post(app, path, { transaction: t, blockHeight: built.lastValidBlockHeight });
    if (s.status !== 200) throw new Error(`${path} answered ${s.status}: ${JSON.stringify(s.body)}`);
    last = s.body;
    if (last.result === null) break;
  }
  return { built, sent: last as never };
}

/**
 * Creates (through the builder and sender) a USDC defi-pool of `owner` lending against JTO at 20% APR,
 * LTV 60%, full exposure, depositing `amountBaseUnits`; returns the pool address.
 */
export async function createUsdcJtoPool(
  w: TxWorld,
  owner: KeyPairSigner,
  seed: number,
  amountBaseUnits: string,
  aprBps = 2000,
): Promise<Address> {
  const [bank] = await findBankPda(w.programId, owner.address, USDC_MINT);
  const r = await buildSignSend(
    w.app,
    "/defi/create-pool",
    {
      bank,
      owner: owner.address,
      amount: amountBaseUnits,
      mint: USDC_MINT,
      seed: String(seed),
      param: {
        apr: aprBps,
        limits: TEST_POOL_LIMITS,
        currencies: [{ currency: JTO_MINT, currencyLtv: 6000, exposure: 10000 }],
      },
    },
    [owner],
  );
  if (r.sent.result === null) throw new Error(JSON.stringify(r.sent));
  return (await findPoolPda(w.programId, owner.address, BigInt(seed)))[0];
}

/**
 * Creates (through the builder and sender) an nft-pool of `owner` in `mint` lending against `collections` at 50% LTV,
 * full exposure, 20% APR, depositing `amountBaseUnits`; returns the pool address.
 */
export async function createNftPool(
  w: TxWorld,
  owner: KeyPairSigner,
  input: { seed: number; mint: Address; amountBaseUnits: bigint; collections: string[] },
): Promise<Address> {
  const [bank] = await findBankPda(w.programId, owner.address, input.mint);
  const r = await buildSignSend(
    w.app,
    "/nft/create-pool",
    {
      bank,
      owner: owner.address,
      amount: input.amountBaseUnits.toString(),
      mint: input.mint,
      seed: String(input.seed),
      param: {
        apr: 2000,
        limits: TEST_POOL_LIMITS,
        collections: input.collections.map((collection) => ({
          collection,
          collectionLtv: 5000,
          exposure: 10000,
        })),
      },
    },
    [owner],
  );
  if (r.sent.result === null) throw new Error(JSON.stringify(r.sent));
  return (await findPoolPda(w.programId, owner.address, BigInt(input.seed)))[0];
}

/** Advances the localnet clock and waits until the Clock sysvar the builder reads shows it. */
/** The world's read side: an indexer of its program over its database (run `reconcile()` to index the chain now). */
export function createWorldIndexer(w: TxWorld): Indexer {
  return createIndexer({
    db: w.tx.app.db,
    rpc: w.tx.app.rpc,
    wsUrl: w.net.wsUrl,
    programId: w.programId,
    reconcileIntervalMs: 60_000,
    log: w.app.log,
  });
}

export async function advanceClock(w: TxWorld, seconds: number): Promise<void> {
  const target = (await w.tx.clock.unixTime()) + seconds;
  await w.net.advanceClock(seconds);
  for (let i = 0; i < 100 && (await w.tx.clock.unixTime()) < target; i++)
    await new Promise((r) => setTimeout(r, 50));
  if ((await w.tx.clock.unixTime()) < target) throw new Error(`the chain clock did not reach ${target}`);
}

/** A new wallet with SOL, USDC, demo tokens and demo NFTs from the localnet faucet. */
export async function fundedWallet(net: LocalnetHandle) {
  const signer = await generateKeyPairSigner();
  const given = await net.faucet(signer.address);
  await net.fundWallet(signer.address, { lamports: 50_000_000_000n });
  return { signer, given };
}

/** Starts localnet (lending program deployed), the API with the tx routes, and initialises the config. */
/** Instructions signed by `admin` (any wallet: it pays) through the builder's factory and the sender. */
export async function sendAsAdmin(
  app: FastifyInstance,
  tx: TxContext,
  admin: KeyPairSigner,
  instructions: Instruction[],
) {
  const built = await tx.factory.build({
    feePayer: admin.address,
    groups: [instructions],
    options: getPriorityFeeOptions(),
    needsOracle: false,
  });
  const [signed] = await signAll(built, [admin]);
  const sent = await post(app, "/send-transaction", {
    transaction: signed,
    blockHeight: built.lastValidBlockHeight,
  });
  if (sent.body.result === null || sent.status !== 200)
    throw new Error(`admin transaction failed: ${JSON.stringify(sent.body)}`);
}

/** JTO/USDC reserves of the world's swap pool: 100,000 JTO against 250,000 USDC (2.5 USDC per JTO). */
export const SWAP_POOL_JTO = 100_000_000_000_000n;
export const SWAP_POOL_USDC = 250_000_000_000n;

/** Deploys nothing (the localnet did): pins the venue and seeds its JTO/USDC pool as the admin. */
async function setUpSwapVenue(
  w: { app: FastifyInstance; tx: TxContext; net: LocalnetHandle; programId: Address },
  admin: KeyPairSigner,
  venue: Address,
) {
  await sendAsAdmin(w.app, w.tx, admin, [
    await getSetVenuesInstruction({ programAddress: w.programId, admin: admin.address, swapProgram: venue }),
  ]);
  const init = await getInitializeSwapPoolInstruction({
    programAddress: venue,
    payer: admin.address,
    mintX: JTO_MINT,
    mintY: USDC_MINT,
    feeBps: 30,
  });
  await sendAsAdmin(w.app, w.tx, admin, [init]);
  await w.net.fundWallet(admin.address, {
    tokens: [
      { mint: JTO_MINT, amount: SWAP_POOL_JTO },
      { mint: USDC_MINT, amount: SWAP_POOL_USDC },
    ],
  });
  const [pool] = await w.tx.state.getAccounts([init.pool]);
  const decoded = { ...decodeSwapPool(pool!.data), address: init.pool };
  const ata = async (mint: Address) => (await getAssociatedTokenAddress(admin.address, mint)) as Address;
  const jtoIsA = decoded.mintA === JTO_MINT;
  await sendAsAdmin(w.app, w.tx, admin, [
    await getAddSwapLiquidityInstruction({
      programAddress: venue,
      depositor: admin.address,
      pool: decoded,
      depositorTokenA: await ata(decoded.mintA),
      depositorTokenB: await ata(decoded.mintB),
      amountA: jtoIsA ? SWAP_POOL_JTO : SWAP_POOL_USDC,
      amountB: jtoIsA ? SWAP_POOL_USDC : SWAP_POOL_JTO,
    }),
  ]);
  return { programId: venue, pool: init.pool };
}

/** Deploys nothing: pins the already deployed lending venue (keeping the swap venue) and opens a funded USDC reserve. */
async function setUpLendingVenue(
  w: { app: FastifyInstance; tx: TxContext; net: LocalnetHandle; programId: Address },
  admin: KeyPairSigner,
  venue: Address,
  swapProgram: Address | undefined,
) {
  await sendAsAdmin(w.app, w.tx, admin, [
    await getSetVenuesInstruction({
      programAddress: w.programId,
      admin: admin.address,
      swapProgram: swapProgram ?? NO_VENUE,
      lendingProgram: venue,
    }),
  ]);
  const init = await getInitializeLendingReserveInstruction({
    programAddress: venue,
    admin: admin.address,
    mint: USDC_MINT,
    rateBps: TEST_RESERVE_RATE_BPS,
  });
  await sendAsAdmin(w.app, w.tx, admin, [init]);
  // the yield fund: 10,000 USDC in the reserve's vault
  await w.net.fundWallet(admin.address, { tokens: [{ mint: USDC_MINT, amount: 10_000_000_000n }] });
  const source = (await getAssociatedTokenAddress(admin.address, USDC_MINT)) as Address;
  await sendAsAdmin(w.app, w.tx, admin, [
    getTransferInstruction({
      source,
      destination: init.vault,
      authority: admin.address,
      amount: 10_000_000_000n,
    }),
  ]);
  return { programId: venue, reserve: init.reserve, vault: init.vault };
}

export async function startTxWorld(
  options: {
    swapVenue?: boolean;
    lendingVenue?: boolean;
    nftMarket?: boolean;
    /** Another build of the lending program (an older version, to upgrade from). */
    lendingSoPath?: string;
    /**
     * Value from the chain (the local NFT market's book and the swap pools' time-weighted prices) instead of the
     * demo world's fixed prices most tests stand on.
     */
    marketValuation?: boolean;
    /** The fixed prices the test stands on (default the demo world's), unless `marketValuation`. */
    prices?: FixedPrices;
    /** Extra API environment (e.g. TX_SNAPSHOT_TTL_MS). */
    env?: Record<string, string>;
    /** The localnet's shortest blockhash validity (0 for expiry tests: 150 blocks of 80 ms, 12 s). */
    blockhashMinValidityMs?: number;
  } = {},
): Promise<TxWorld> {
  const dataDir = mkdtempSync(join(tmpdir(), "cistern-tx-"));
  const net = await startLocalnet({
    rpcPort: 0,
    dataDir: join(dataDir, "chain"),
    slotMs: 80,
    ...(options.blockhashMinValidityMs !== undefined
      ? { blockhashMinValidityMs: options.blockhashMinValidityMs }
      : {}),
    programs: [
      { soPath: options.lendingSoPath ?? SO_PATH },
      ...(options.swapVenue ? [{ soPath: SWAP_VENUE_SO_PATH }] : []),
      ...(options.lendingVenue ? [{ soPath: LENDING_VENUE_SO_PATH }] : []),
      ...(options.nftMarket ? [{ soPath: NFT_MARKET_SO_PATH }] : []),
    ],
  });
  const programId = net.programs[0]!.programId as Address;
  const t: TestDatabase = await createTestDatabase("pglite");
  const env = {
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    DATA_DIR: dataDir,
    SOLANA_RPC_URL: net.rpcUrl,
    LENDING_PROGRAM_ID: programId,
    INDEXER: "off",
    TX_REBROADCAST_MS: "500",
    ...options.env,
  };
  const app = await createApp(loadConfig(env), {
    db: t.db,
    ...(options.marketValuation
      ? {}
      : { valuationSources: createFixedValuationSources(options.prices ?? DEMO_PRICES) }),
  });
  const tx = await registerTxRoutes(app, { env });
  await app.ready();
  // prices refresh on their timers, as in a started API (a quote refuses a price older than a minute)
  app.cistern.prices.start();
  // The program accepts only its upgrade authority as config admin: on localnet that is the faucet keypair.
  const admin = await readKeypairFile(net.faucetKeypairPath);
  const treasury = (await generateKeyPairSigner()).address;
  await net.fundWallet(admin.address, { lamports: 10_000_000_000n });
  const init = await getInitializeConfigInstruction({
    programAddress: programId,
    admin: admin.address,
    oracle: tx.oracle.address,
    treasury,
    protocolFeeBps: 2000,
  });
  const built = await tx.factory.build({
    feePayer: admin.address,
    groups: [[init]],
    options: getPriorityFeeOptions(),
    needsOracle: false,
  });
  const [signed] = await signAll(built, [admin]);
  const sent = await post(app, "/send-transaction", {
    transaction: signed,
    blockHeight: built.lastValidBlockHeight,
  });
  if (sent.body.result === null || sent.status !== 200)
    throw new Error(`config initialisation failed: ${JSON.stringify(sent.body)}`);
  const swapVenue = options.swapVenue
    ? await setUpSwapVenue({ app, tx, net, programId }, admin, net.programs[1]!.programId as Address)
    : undefined;
  const lendingVenue = options.lendingVenue
    ? await setUpLendingVenue(
        { app, tx, net, programId },
        admin,
        net.programs[1 + (options.swapVenue ? 1 : 0)]!.programId as Address,
        swapVenue?.programId,
      )
    : undefined;
  const nftMarket = options.nftMarket ? (net.programs.at(-1)!.programId as Address) : undefined;
  if (nftMarket !== undefined)
    await sendAsAdmin(app, tx, admin, [
      await getSetVenuesInstruction({
        programAddress: programId,
        admin: admin.address,
        swapProgram: swapVenue?.programId ?? NO_VENUE,
        marketProgram: nftMarket,
        lendingProgram: lendingVenue?.programId ?? NO_VENUE,
      }),
    ]);
  return {
    net,
    app,
    tx,
    programId,
    treasury,
    dataDir,
    ...(swapVenue ? { swapVenue } : {}),
    ...(lendingVenue ? { lendingVenue } : {}),
    ...(nftMarket ? { nftMarket } : {}),
    async close() {
      await app.close();
      await t.drop();
      await net.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
