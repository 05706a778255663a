import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEMO_TOKENS, getAssociatedTokenAddress, WRAPPED_SOL_MINT_ADDRESS } from "@cistern/localnet";
import { parsePriceMicroUsd } from "@cistern/protocol";
import {
  decodeSwapPool,
  findSwapPoolPda,
  getAddSwapLiquidityInstruction,
  getInitializeSwapPoolInstruction,
  type SwapPoolAccount,
} from "@cistern/sdk";
import { type Address, address, type KeyPairSigner } from "@solana/kit";
import { getTransferSolInstruction } from "@solana-program/system";
import {
  getCreateAssociatedTokenIdempotentInstructionAsync,
  getSyncNativeInstruction,
} from "@solana-program/token";
import type { ChainClient } from "./chain-client.ts";
import { ensureLendingProgram, type ProgramDeployAction } from "./deploy-lending.ts";
import { getKeysDir, loadOrCreateKeyFile } from "./key-files.ts";
import { ensureLocalnetLamports, ensureLocalnetTokens } from "./seed-demo.ts";
import { pinVenue } from "./venue-pin.ts";

/** Fee of the demo swap pools, basis points. */
export const DEMO_SWAP_FEE_BPS = 30;
/** Depth of each side of a demo swap pool, USD at the seeded prices. */
export const DEMO_SWAP_DEPTH_USD = 200_000n;

/** The demo pairs: every collateral token against each lending currency, and SOL against USDC. */
export function getDemoSwapPairs(): [string, string][] {
  const currencies = DEMO_TOKENS.filter((t) => t.role === "currency").map((t) => t.symbol);
  const collateral = DEMO_TOKENS.filter((t) => t.role === "collateral").map((t) => t.symbol);
  return [["SOL", "USDC"], ...collateral.flatMap((c) => currencies.map((q): [string, string] => [c, q]))];
}

/** Base units of `symbol` worth DEMO_SWAP_DEPTH_USD at its seeded price. */
function depthOf(symbol: string): { mint: Address; amount: bigint } {
  const token = DEMO_TOKENS.find((t) => t.symbol === symbol)!;
  const price = parsePriceMicroUsd(token.priceUsd)!;
  return {
    mint: address(token.mint),
    amount: (DEMO_SWAP_DEPTH_USD * 1_000_000n * 10n ** BigInt(token.decimals)) / price,
  };
}

export interface SwapVenueResult {
  programId: Address;
  programAction: ProgramDeployAction;
  /** Whether SetVenues was sent (the lending program's Venues did not pin this venue yet). */
  venuesAction: "pinned" | "unchanged";
  pools: { pair: string; address: Address; action: "created" | "seeded" | "unchanged" }[];
}

/**
 * The local swap venue, idempotently: its program deployed or upgraded (key `swap-venue-program.json` in the
 * data dir, admin = upgrade authority), pinned in the lending program's Venues, and with `demo` its pools for
 * the demo pairs created and seeded at the demo prices (each side DEMO_SWAP_DEPTH_USD; the admin's tokens come
 * from the localnet faucet, SOL is wrapped).
 */
export async function ensureSwapVenue(input: {
  chain: ChainClient;
  dataDir: string;
  admin: KeyPairSigner;
  lendingProgramId: Address;
  soPath: string;
  demo: boolean;
}): Promise<SwapVenueResult> {
  const { chain, admin } = input;
  const program = await loadOrCreateKeyFile(join(getKeysDir(input.dataDir), "swap-venue-program.json"));
  const deployed = await ensureLendingProgram({
    chain,
    programBytes: new Uint8Array(readFileSync(input.soPath)),
    program,
    admin,
  });
  const venuesAction = await pinVenue(chain, admin, input.lendingProgramId, { swapProgram: program.address });
  const pools: SwapVenueResult["pools"] = [];
  if (input.demo) {
    const pending = [];
    for (const [x, y] of getDemoSwapPairs())
      pending.push(
        await ensureDemoSwapPool(chain, admin, program.address, depthOf(x), depthOf(y), `${x}/${y}`),
      );
    // SOL is wrapped once for every pool still to seed: one wrap per pool would repeat the same transaction
    const sol = pending
      .filter((p) => p.unseeded !== null)
      .flatMap((p) => [p.unseeded!.x, p.unseeded!.y])
      .filter((side) => side.mint === WRAPPED_SOL_MINT_ADDRESS)
      .reduce((sum, side) => sum + side.amount, 0n);
    if (sol > 0n) await fundAdmin(chain, admin, address(WRAPPED_SOL_MINT_ADDRESS), sol);
    for (const p of pending) {
      if (p.unseeded !== null) await seedDemoSwapPool(chain, admin, program.address, p.unseeded);
      pools.push({
        pair: p.pair,
        address: p.address,
        action: p.unseeded === null ? p.action : p.action === "created" ? "created" : "seeded",
      });
    }
  }
  return { programId: program.address, programAction: deployed.action, venuesAction, pools };
}

interface DemoSide {
  mint: Address;
  amount: bigint;
}
interface UnseededPool {
  pool: SwapPoolAccount & { address: Address };
  x: DemoSide;
  y: DemoSide;
  pair: string;
}

/** Creates the demo pool of a pair when missing; `unseeded` is set when its vaults are still empty. */
async function ensureDemoSwapPool(
  chain: ChainClient,
  admin: KeyPairSigner,
  programAddress: Address,
  x: DemoSide,
  y: DemoSide,
  pair: string,
): Promise<{
  pair: string;
  address: Address;
  action: "created" | "unchanged";
  unseeded: UnseededPool | null;
}> {
  const [poolAddress] = await findSwapPoolPda(programAddress, x.mint, y.mint);
  let action: "created" | "unchanged" = "unchanged";
  if ((await chain.fetchAccount(poolAddress)) === null) {
    const init = await getInitializeSwapPoolInstruction({
      programAddress,
      payer: admin,
      mintX: x.mint,
      mintY: y.mint,
      feeBps: DEMO_SWAP_FEE_BPS,
    });
    await chain.send(`create the ${pair} swap pool`, [init], admin);
    action = "created";
  }
  const pool = { ...decodeSwapPool((await chain.fetchAccount(poolAddress))!.data), address: poolAddress };
  const reserves = [await chain.fetchTokenBalance(pool.vaultA), await chain.fetchTokenBalance(pool.vaultB)];
  const seeded = reserves[0]! > 0n || reserves[1]! > 0n;
  return { pair, address: poolAddress, action, unseeded: seeded ? null : { pool, x, y, pair } };
}

/** Deposits the demo depth of both sides into an empty pool (the admin's tokens; SOL already wrapped). */
async function seedDemoSwapPool(
  chain: ChainClient,
  admin: KeyPairSigner,
  programAddress: Address,
  { pool, x, y, pair }: UnseededPool,
): Promise<void> {
  const byMint = new Map([
    [x.mint, x.amount],
    [y.mint, y.amount],
  ]);
  const accounts: Address[] = [];
  for (const mint of [pool.mintA, pool.mintB])
    accounts.push(await fundAdmin(chain, admin, mint, byMint.get(mint)!));
  await chain.send(
    `seed the ${pair} swap pool`,
    [
      await getAddSwapLiquidityInstruction({
        programAddress,
        depositor: admin,
        pool,
        depositorTokenA: accounts[0]!,
        depositorTokenB: accounts[1]!,
        amountA: byMint.get(pool.mintA)!,
        amountB: byMint.get(pool.mintB)!,
      }),
    ],
    admin,
  );
}

/** The admin's token account of `mint` holding at least `amount` (localnet faucet tokens; SOL wrapped from lamports). */
export async function fundAdmin(
  chain: ChainClient,
  admin: KeyPairSigner,
  mint: Address,
  amount: bigint,
): Promise<Address> {
  if (mint !== WRAPPED_SOL_MINT_ADDRESS) return ensureLocalnetTokens(chain, admin.address, mint, amount);
  const ata = address(await getAssociatedTokenAddress(admin.address, mint));
  const have = await chain.fetchTokenBalance(ata);
  if (have >= amount) return ata;
  const balance = await chain.fetchBalance(admin.address);
  await ensureLocalnetLamports(
    chain,
    admin.address,
    amount + 10_000_000_000n,
    balance + amount + 10_000_000_000n,
  );
  await chain.send(
    "wrap SOL for the swap pools",
    [
      await getCreateAssociatedTokenIdempotentInstructionAsync({ payer: admin, owner: admin.address, mint }),
      getTransferSolInstruction({ source: admin, destination: ata, amount: amount - have }),
      getSyncNativeInstruction({ account: ata }),
    ],
    admin,
  );
  return ata;
}
