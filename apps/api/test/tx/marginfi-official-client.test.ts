/**
 * marginfi's own TypeScript client (@mrgnlabs/marginfi-client-v2, pinned at 4.0.0) reads what the localnet and
 * the product hold: the group and its USDC / SOL banks (made by marginfi's admin instructions), the price accounts
 * the localnet posts, and a Cistern bank's delegation account (the lending program's PDA ["marginfi_account",
 * bank], whose authority is the bank's PDA), with the same figures the API answers.
 *
 * Why 4.0.0: the localnet runs an early-2025 mainnet build of marginfi (before 0.1.4), whose Pyth push banks keep
 * the feed id in oracle key 0. Client 4.0.0 resolves a feed id to its sponsored price account; the 6.x releases
 * read oracle key 0 as the price account itself (marginfi 0.1.4 and later) and fail to load these banks
 * (packages/localnet/README.md, "marginfi").
 */
import { MARGINFI_PROGRAM, PYTH_FEEDS, pythPriceFeedAddress } from "@cistern/localnet";
import { decodeBankAccount, findBankPda } from "@cistern/sdk";
import { type Bank, MarginfiClient, type MarginfiConfig } from "@mrgnlabs/marginfi-client-v2";
import type { Address, KeyPairSigner } from "@solana/kit";
import { Connection, Keypair, PublicKey, type Transaction, type VersionedTransaction } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upsertBank } from "../../src/indexer/store.ts";
import {
  decodeMarginfiAccount,
  decodeMarginfiBank,
  marginfiRatesBps,
  marginfiTotalDeposits,
} from "../../src/venues/lending/marginfi-accounts.ts";
import {
  createMarginfiMarket,
  generateMarginfiKeys,
  MARGINFI_TEST_MARKET,
  type MarginfiKeys,
  marginfiEnv,
} from "./support/marginfi-market.ts";
import {
  buildSignSend,
  createUsdcJtoPool,
  fundedWallet,
  startTxWorld,
  type TxWorld,
  USDC_MINT,
} from "./support/tx-world.ts";

/** A figure of marginfi's client: a bignumber.js decimal, from decimal.js conversions kept to 20 significant digits. */
type ClientDecimal = ReturnType<Bank["getTotalAssetQuantity"]>;
const TWO_48 = 1n << 48n;

/**
 * The client's `figure` is the exact `product` of two I80F48 raws (scaled by 2^96) to within its decimals (1e-6),
 * and `apiUnits` is that product floored, as marginfi's I80F48 arithmetic floors what it pays. The client's own
 * floor can be one unit above the chain's when the exact figure sits a hair under a whole unit (its 20 digits round
 * 599,999,999.99999999999... up), which is why the comparison is with the exact product.
 */
function expectSameFigure(figure: ClientDecimal, product: bigint, apiUnits: bigint) {
  const scale = (TWO_48 * TWO_48).toString();
  expect(figure.times(scale).minus(product.toString()).abs().div(scale).lt(1e-6)).toBe(true);
  expect(apiUnits).toBe(product / (TWO_48 * TWO_48));
}

/**
 * The client as an integrator loads it, read only. It also asks marginfi's public storage for bank metadata and
 * lookup tables; this machine has no network, so those requests are refused at once (the client carries on
 * without them, as it does when they are unreachable) and only the localnet is spoken to.
 */
async function loadOfficialClient(rpcUrl: string, group: Address): Promise<MarginfiClient> {
  const realFetch = globalThis.fetch;
  globalThis.fetch = ((input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const url = String(input instanceof Request ? input.url : input);
    if (!url.startsWith(rpcUrl)) return Promise.reject(new TypeError(`offline test: no request to ${url}`));
    return realFetch(input, init);
  }) as typeof fetch;
  const quiet = console.error;
  console.error = () => {};
  try {
    const config: MarginfiConfig = {
      environment: "production",
      cluster: "localnet",
      programId: new PublicKey(MARGINFI_PROGRAM),
      groupPk: new PublicKey(group),
    };
    const reader = Keypair.generate().publicKey;
    const wallet = {
      publicKey: reader,
      signTransaction: async <T extends Transaction | VersionedTransaction>(t: T) => t,
      signAllTransactions: async <T extends Transaction | VersionedTransaction>(t: T[]) => t,
    };
    return await MarginfiClient.fetch(config, wallet, new Connection(rpcUrl, "confirmed"), {
      readOnly: true,
    });
  } finally {
    globalThis.fetch = realFetch;
    console.error = quiet;
  }
}

describe("marginfi's official client reads the localnet's marginfi and the product's delegation", () => {
  let w: TxWorld;
  let keys: MarginfiKeys;
  let lender: KeyPairSigner;
  let bank: Address;
  let client: MarginfiClient;

  beforeAll(async () => {
    keys = await generateMarginfiKeys();
    w = await startTxWorld({ env: marginfiEnv(keys) });
    await createMarginfiMarket(w, keys);
    lender = (await fundedWallet(w.net)).signer;
    await createUsdcJtoPool(w, lender, 1, "1000000000"); // 1,000 USDC
    [bank] = await findBankPda(w.programId, lender.address, USDC_MINT);
    const d = await buildSignSend(
      w.app,
      "/bank/marginfi-deposit",
      { owner: lender.address, mint: USDC_MINT, amount: "600000000" },
      [lender],
    );
    expect(d.sent.error).toBeUndefined();
    client = await loadOfficialClient(w.net.rpcUrl, keys.group.address);
  }, 240_000);
  afterAll(async () => {
    await w?.close();
  });

  it("loads the group and both banks, each on the Pyth price account the localnet posts, at its price", () => {
    expect(client.groupAddress.toBase58()).toBe(keys.group.address);
    expect([...client.banks.keys()].sort()).toEqual([keys.banks.USDC.address, keys.banks.SOL.address].sort());
    for (const symbol of ["USDC", "SOL"] as const) {
      const feed = PYTH_FEEDS.find((f) => f.symbol === symbol)!;
      const b = client.getBankByPk(keys.banks[symbol].address)!;
      expect(b.mint.toBase58()).toBe(feed.mint);
      expect(b.group.toBase58()).toBe(keys.group.address);
      expect(b.config.oracleSetup).toBe("PythPushOracle");
      expect(b.oracleKey.toBase58()).toBe(pythPriceFeedAddress(feed));
    }
    const price = (symbol: "USDC" | "SOL") =>
      client.getOraclePriceByBank(keys.banks[symbol].address)!.priceRealtime.price.toNumber();
    expect(price("SOL")).toBe(150);
    expect(price("USDC")).toBe(1);
  });

  it("its bank figures are the API's: deposits and borrows to the base unit, the depositors' rate in basis points", async () => {
    const usdc = client.getBankByPk(keys.banks.USDC.address)!;
    const m = decodeMarginfiBank((await w.tx.state.getAccounts([keys.banks.USDC.address]))[0]!.data);
    const deposits = marginfiTotalDeposits(m);
    expectSameFigure(usdc.getTotalAssetQuantity(), m.totalAssetShares * m.assetShareValue, deposits);
    // the trader's 2,000 USDC and the bank's 600 delegated, with the few base units of interest since
    const lent = MARGINFI_TEST_MARKET.usdcLent + 600_000_000n;
    expect(deposits >= lent - 1n && deposits < lent + 10_000n).toBe(true);
    const borrowed = m.totalLiabilityShares * m.liabilityShareValue;
    expectSameFigure(usdc.getTotalLiabilityQuantity(), borrowed, borrowed / (TWO_48 * TWO_48));
    const owed = borrowed / (TWO_48 * TWO_48) - MARGINFI_TEST_MARKET.usdcBorrowed;
    expect(owed >= 0n && owed < 10_000n).toBe(true);
    const reserve = (await w.app.inject({ url: `/marginfi/reserve?mint=${USDC_MINT}` })).json();
    expect(reserve).toMatchObject({ venue: "marginfi", reserve: keys.banks.USDC.address });
    expect(reserve.rateBps).toBe(marginfiRatesBps(m).lendingRateBps);
    const clientBps = usdc.computeInterestRates().lendingRate.times(10_000);
    expect(clientBps.minus(reserve.rateBps).toNumber()).toBeGreaterThanOrEqual(0);
    expect(clientBps.minus(reserve.rateBps).toNumber()).toBeLessThan(1);
  });

  it("finds the Cistern bank's delegation account under the bank's PDA, holding what the API says it holds", async () => {
    // the API answers from its index of the bank, brought up to the chain first
    const [account] = await w.tx.state.getAccounts([bank]);
    await upsertBank(w.app.cistern.db, bank, decodeBankAccount(account!.data), await w.tx.clock.slot());
    const view = (await w.app.inject({ url: `/marginfi/bank?pubkey=${bank}` })).json();
    expect(view.externalAccount).not.toBeNull();
    const accounts = await client.getMarginfiAccountsForAuthority(bank);
    expect(accounts.map((a) => a.address.toBase58())).toEqual([view.externalAccount]);
    const [position] = accounts;
    expect(position!.authority.toBase58()).toBe(bank);
    const balances = position!.activeBalances;
    expect(balances.map((b) => b.bankPk.toBase58())).toEqual([keys.banks.USDC.address]);
    const usdc = client.getBankByPk(keys.banks.USDC.address)!;
    const { assets, liabilities } = balances[0]!.computeQuantity(usdc);
    expect(liabilities.isZero()).toBe(true);
    const read = async (a: Address) => (await w.tx.state.getAccounts([a]))[0]!.data;
    const m = decodeMarginfiBank(await read(keys.banks.USDC.address));
    const shares = decodeMarginfiAccount(await read(view.externalAccount)).balances[0]!.assetShares;
    expectSameFigure(assets, shares * m.assetShareValue, BigInt(view.positionValue));
    expectSameFigure(balances[0]!.assetShares, shares * TWO_48, BigInt(view.positionShares));
    expect(view.positionValue).toBe(view.delegatedLiquidity);
    expect(BigInt(view.positionValue)).toBeGreaterThanOrEqual(599_999_999n);
  });

  it("the lender's own wallet holds no marginfi account: the delegation is the bank's, not the wallet's", async () => {
    expect(await client.getMarginfiAccountsForAuthority(lender.address)).toEqual([]);
  });
});
