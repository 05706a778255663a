import { join } from "node:path";
import { getAssociatedTokenAddress, USDC_MINT_ADDRESS, WRAPPED_SOL_MINT_ADDRESS } from "@cistern/localnet";
import { getCurrencyByMint } from "@cistern/protocol";
import {
  type BankAccount,
  decodeBankAccount,
  findBankPda,
  findPoolPda,
  findVaultPda,
  getCreateBankInstruction,
  getCreatePoolInstruction,
  getDepositInstruction,
  type PoolType,
  TOKEN_PROGRAM_ADDRESS,
} from "@cistern/sdk";
import { type Address, address, type Instruction, type KeyPairSigner } from "@solana/kit";
import { BOOTSTRAP_ERROR, BootstrapError } from "./bootstrap-error.ts";
import type { ChainClient } from "./chain-client.ts";
import { DEMO_LENDERS, type DemoLenderPlan } from "./demo-plan.ts";
import { getKeysDir, loadOrCreateKeyFile } from "./key-files.ts";
import { getPoolCreationPlan, type PoolCreationPlan } from "./pool-params.ts";

/** Lamports a demo lender keeps for fees and rent (topped up to {@link DEMO_LENDER_TOP_UP_LAMPORTS}). */
export const DEMO_LENDER_MIN_LAMPORTS = 1_000_000_000n;
/** Lamports a demo lender is topped up to (5 SOL). */
export const DEMO_LENDER_TOP_UP_LAMPORTS = 5_000_000_000n;

/** A seeded demo bank. */
export interface DemoBank {
  symbol: string;
  mint: Address;
  bank: Address;
  vault: Address;
  /** What the bootstrap deposited (sum of the bank's pools' amounts), base units. */
  depositBaseUnits: bigint;
  /** "deposited" when this run created/funded it, "unchanged" when it was already deposited. */
  action: "deposited" | "unchanged";
}

/** A seeded demo pool. */
export interface DemoPool {
  address: Address;
  name: string;
  poolType: PoolType;
  currencyMint: Address;
  seed: bigint;
  plan: PoolCreationPlan;
  action: "created" | "unchanged";
}

/** A seeded demo lender. */
export interface DemoLender {
  name: string;
  address: Address;
  keyPath: string;
  banks: DemoBank[];
  pools: DemoPool[];
}

/** What the demo seeding produced. */
export interface DemoSeedResult {
  lenders: DemoLender[];
}

/** Tops a wallet up with the localnet admin faucet (localnet_fundWallet) when it is below `minLamports`. */
export async function ensureLocalnetLamports(
  chain: ChainClient,
  wallet: Address,
  minLamports: bigint,
  topUpToLamports: bigint,
): Promise<void> {
  const balance = await chain.fetchBalance(wallet);
  if (balance >= minLamports) return;
  await chain.callLocalnetAdmin("localnet_fundWallet", [
    wallet,
    { lamports: (topUpToLamports - balance).toString() },
  ]);
}

/** Gives `owner` exactly the missing tokens so its associated token account holds >= `amountBaseUnits`. */
export async function ensureLocalnetTokens(
  chain: ChainClient,
  owner: Address,
  mint: Address,
  amountBaseUnits: bigint,
): Promise<Address> {
  const tokenAccount = address(await getAssociatedTokenAddress(owner, mint));
  const balance = await chain.fetchTokenBalance(tokenAccount);
  if (balance < amountBaseUnits) {
    await chain.callLocalnetAdmin("localnet_fundWallet", [
      owner,
      { tokens: [{ mint, amount: (amountBaseUnits - balance).toString() }] },
    ]);
  }
  return tokenAccount;
}

/** Throws DEMO_WORLD_MISSING unless the localnet demo world's currency mints exist. */
export async function assertDemoMints(chain: ChainClient): Promise<void> {
  for (const mint of [USDC_MINT_ADDRESS, WRAPPED_SOL_MINT_ADDRESS]) {
    const account = await chain.fetchAccount(address(mint));
    if (!account || account.owner !== TOKEN_PROGRAM_ADDRESS) {
      throw new BootstrapError(
        BOOTSTRAP_ERROR.DEMO_WORLD_MISSING,
        `demo seeding needs the localnet demo world (mint ${mint} is missing); start the localnet with seeding on`,
      );
    }
  }
}

/** Creates (when absent) and funds (when never deposited) one demo bank, in one transaction. */
async function ensureDemoBank(input: {
  chain: ChainClient;
  programAddress: Address;
  lender: KeyPairSigner;
  mint: Address;
  depositBaseUnits: bigint;
}): Promise<DemoBank> {
  const { chain, programAddress, lender, mint, depositBaseUnits } = input;
  const symbol = getCurrencyByMint(mint)?.symbol ?? mint;
  const [bank] = await findBankPda(programAddress, lender.address, mint);
  const [vault] = await findVaultPda(programAddress, bank);
  const existing = await chain.fetchAccount(bank);
  let state: BankAccount | null = null;
  if (existing) {
    if (existing.owner !== programAddress) {
      throw new BootstrapError(
        BOOTSTRAP_ERROR.DEMO_ACCOUNT_MISMATCH,
        `bank address ${bank} is owned by ${existing.owner}, not the lending program`,
      );
    }
    state = decodeBankAccount(existing.data);
  }
  if (state && state.depositedAt !== 0n) {
    return { symbol, mint, bank, vault, depositBaseUnits, action: "unchanged" };
  }
  const source = await ensureLocalnetTokens(chain, lender.address, mint, depositBaseUnits);
  const instructions: Instruction[] = [];
  if (!state) instructions.push(await getCreateBankInstruction({ programAddress, owner: lender, mint }));
  instructions.push(
    await getDepositInstruction({
      programAddress,
      owner: lender,
      mint,
      sourceTokenAccount: source,
      amountBaseUnits: depositBaseUnits,
    }),
  );
  await chain.send(`${symbol} bank of demo lender ${lender.address}`, instructions, lender);
  return { symbol, mint, bank, vault, depositBaseUnits, action: "deposited" };
}

async function seedLender(
  chain: ChainClient,
  programAddress: Address,
  keysDir: string,
  plan: DemoLenderPlan,
): Promise<DemoLender> {
  const keyPath = join(keysDir, "demo-lenders", plan.keyFile);
  const lender = await loadOrCreateKeyFile(keyPath);
  await ensureLocalnetLamports(chain, lender.address, DEMO_LENDER_MIN_LAMPORTS, DEMO_LENDER_TOP_UP_LAMPORTS);

  // Pools from form values; the pool seed is the pool's 1-based index in the plan (stable across runs).
  const pools = await Promise.all(
    plan.pools.map(async (form, index) => {
      const mint = address(form.poolCurrency);
      const [bank] = await findBankPda(programAddress, lender.address, mint);
      const creation = getPoolCreationPlan({ ...form, owner: lender.address, bank });
      const seed = BigInt(index + 1);
      const [pool] = await findPoolPda(programAddress, lender.address, seed);
      return { form, mint, creation, seed, pool };
    }),
  );
  // One bank per currency; its deposit is the sum of its pools' amounts.
  const deposits = new Map<Address, bigint>();
  for (const p of pools) deposits.set(p.mint, (deposits.get(p.mint) ?? 0n) + p.creation.amountBaseUnits);
  // Banks of different currencies and the lenders are independent: their transactions wait for confirmation
  // together (a slot each, not one after the other).
  const banks: DemoBank[] = await Promise.all(
    [...deposits].map(([mint, depositBaseUnits]) =>
      ensureDemoBank({ chain, programAddress, lender, mint, depositBaseUnits }),
    ),
  );
  const seeded = await Promise.all(
    pools.map(async (p): Promise<DemoPool> => {
      const base = {
        address: p.pool,
        name: p.form.poolName,
        poolType: p.creation.poolType,
        currencyMint: p.mint,
        seed: p.seed,
        plan: p.creation,
      };
      const existing = await chain.fetchAccount(p.pool);
      if (existing) {
        if (existing.owner !== programAddress) {
          throw new BootstrapError(
            BOOTSTRAP_ERROR.DEMO_ACCOUNT_MISMATCH,
            `pool address ${p.pool} is owned by ${existing.owner}, not the lending program`,
          );
        }
        return { ...base, action: "unchanged" };
      }
      await chain.send(
        `CreatePool "${p.form.poolName}" of demo lender ${lender.address}`,
        [
          await getCreatePoolInstruction({
            programAddress,
            owner: lender,
            currencyMint: p.mint,
            poolType: p.creation.poolType,
            seed: p.seed,
            params: p.creation.params,
          }),
        ],
        lender,
      );
      return { ...base, action: "created" };
    }),
  );
  return { name: plan.name, address: lender.address, keyPath, banks, pools: seeded };
}

/**
 * Seeds the demo lenders on localnet (keys in `<dataDir>/keys/demo-lenders/`): each gets SOL for fees from
 * the admin faucet, a USDC and a SOL bank holding the sum of its pools' amounts (funded with
 * localnet_fundWallet, then CreateBank + Deposit signed by the lender), and its published pools.
 * Idempotent: existing banks that were deposited into and existing pools are left as they are.
 */
export async function seedDemoLenders(input: {
  chain: ChainClient;
  programAddress: Address;
  dataDir: string;
  lenders?: DemoLenderPlan[];
}): Promise<DemoSeedResult> {
  await assertDemoMints(input.chain);
  const keysDir = getKeysDir(input.dataDir);
  const lenders = await Promise.all(
    (input.lenders ?? DEMO_LENDERS).map((plan) =>
      seedLender(input.chain, input.programAddress, keysDir, plan),
    ),
  );
  return { lenders };
}
