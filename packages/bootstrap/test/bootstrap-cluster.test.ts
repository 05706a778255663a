import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  DEMO_COLLECTIONS,
  DEMO_COMPRESSED_COLLECTIONS,
  DEMO_CORE_COLLECTIONS,
  DEMO_PROGRAMMABLE_COLLECTIONS,
  DEMO_TOKENS,
  MARGINFI_PROGRAM,
  USDC_MINT_ADDRESS,
  WRAPPED_SOL_MINT_ADDRESS,
} from "@cistern/localnet";
import {
  decodeBankAccount,
  decodeConfigAccount,
  decodeLendingReserve,
  decodeMarketBid,
  decodeMarketListing,
  decodePoolAccount,
  decodeSwapPool,
  decodeVenuesAccount,
  findBankPda,
  findConfigPda,
  findPoolPda,
  findProgramDataAddress,
  findVenuesPda,
  PROGRAMDATA_METADATA_SIZE,
} from "@cistern/sdk";
import { type Address, address, getAddressDecoder, getAddressEncoder } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BootstrapClusterResult,
  bootstrapCluster,
  DEMO_LENDERS,
  DEMO_RESERVE_RATES_BPS,
  getDemoSwapPairs,
  getPoolCreationPlan,
  readClusterInfo,
} from "../src/index.ts";
import {
  fetchData,
  fetchProgramAccountsByTag,
  fetchTokenAmount,
  LENDING_SO_PATH,
  LENDING_VENUE_SO_PATH,
  NFT_MARKET_SO_PATH,
  SWAP_VENUE_SO_PATH,
  startTestLocalnet,
  tempDir,
} from "./helpers.ts";

const USDC = address(USDC_MINT_ADDRESS);
const SOL = address(WRAPPED_SOL_MINT_ADDRESS);
const collection = (symbol: string) =>
  address(DEMO_COLLECTIONS.find((c) => c.symbol === symbol)!.collectionId);
const token = (symbol: string) => address(DEMO_TOKENS.find((t) => t.symbol === symbol)!.mint);

/** Deposits of each demo lender's banks, base units (sum of its pools' poolAmount). */
const EXPECTED_DEPOSITS: { usdcBaseUnits: bigint; solBaseUnits: bigint }[] = [
  { usdcBaseUnits: 85_000_000_000n, solBaseUnits: 300_000_000_000n },
  { usdcBaseUnits: 20_000_000_000n, solBaseUnits: 650_000_000_000n },
  { usdcBaseUnits: 190_000_000_000n, solBaseUnits: 340_000_000_000n },
];

describe("bootstrapCluster on a real localnet", () => {
  let net: Awaited<ReturnType<typeof startTestLocalnet>>;
  const dataDir = tempDir("data");
  let first: BootstrapClusterResult;
  const run = (extra: { lendingSoPath?: string } = {}) =>
    bootstrapCluster({
      rpcUrl: net.rpcUrl,
      wsUrl: net.wsUrl,
      dataDir,
      cluster: "localnet",
      lendingSoPath: extra.lendingSoPath ?? LENDING_SO_PATH,
      swapVenueSoPath: SWAP_VENUE_SO_PATH,
      lendingVenueSoPath: LENDING_VENUE_SO_PATH,
      nftMarketSoPath: NFT_MARKET_SO_PATH,
      demo: true,
    });

  beforeAll(async () => {
    net = await startTestLocalnet();
    first = await run();
  });
  afterAll(async () => {
    await net?.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("deploys the program, writes 0600 keys and cluster.json", async () => {
    expect(first.programAction).toBe("deployed");
    expect(first.configAction).toBe("initialized");
    for (const file of ["program-keypair.json", "admin.json", "oracle.json", "treasury.json"]) {
      const path = join(dataDir, "keys", file);
      expect(statSync(path).mode & 0o777).toBe(0o600);
    }
    for (const plan of DEMO_LENDERS) {
      expect(statSync(join(dataDir, "keys", "demo-lenders", plan.keyFile)).mode & 0o777).toBe(0o600);
    }
    const program = await net.rpc
      .getAccountInfo(first.lendingProgramId, { encoding: "base64", commitment: "confirmed" })
      .send();
    expect(program.value).toMatchObject({
      executable: true,
      owner: "BPFLoaderUpgradeab1e11111111111111111111111",
    });
    const programData = await fetchData(net.rpc, await findProgramDataAddress(first.lendingProgramId));
    const so = new Uint8Array(readFileSync(LENDING_SO_PATH));
    expect(
      Buffer.from(programData!.subarray(PROGRAMDATA_METADATA_SIZE, PROGRAMDATA_METADATA_SIZE + so.length)),
    ).toEqual(Buffer.from(so));
    expect(readClusterInfo(dataDir)).toEqual({
      lendingProgramId: first.lendingProgramId,
      admin: first.adminAddress,
      oracle: first.oracleAddress,
      treasury: first.treasuryAddress,
      rpcUrl: net.rpcUrl,
      wsUrl: net.wsUrl,
      cluster: "localnet",
    });
  });

  it("holds the config with the data dir's admin, oracle, treasury and a 2000 bps fee", async () => {
    const [configAddress] = await findConfigPda(first.lendingProgramId);
    const config = decodeConfigAccount((await fetchData(net.rpc, configAddress))!);
    expect(config).toMatchObject({
      admin: first.adminAddress,
      oracle: first.oracleAddress,
      treasury: first.treasuryAddress,
      protocolFeeBps: 2000,
      paused: false,
    });
    // The treasury owns a fee token account for both lending currencies.
    expect(first.treasuryTokenAccounts.map((t) => t.symbol).sort()).toEqual(["SOL", "USDC"]);
    for (const t of first.treasuryTokenAccounts) {
      expect(await fetchTokenAmount(net.rpc, t.tokenAccount)).toBe(0n);
    }
  });

  it("funds every demo bank: vault balance = bank liquidity = the sum of its pools' amounts", async () => {
    const lenders = first.demo!.lenders;
    expect(lenders).toHaveLength(3);
    for (const [i, lender] of lenders.entries()) {
      for (const [mint, expected] of [
        [USDC, EXPECTED_DEPOSITS[i]!.usdcBaseUnits],
        [SOL, EXPECTED_DEPOSITS[i]!.solBaseUnits],
      ] as const) {
        const [bankAddress] = await findBankPda(first.lendingProgramId, lender.address, mint);
        const bank = decodeBankAccount((await fetchData(net.rpc, bankAddress))!);
        expect(bank).toMatchObject({
          owner: lender.address,
          mint,
          totalLiquidity: expected,
          availableLiquidity: expected,
        });
        expect(await fetchTokenAmount(net.rpc, bank.vault)).toBe(expected);
      }
    }
  });

  it("publishes the pools with the intended terms", async () => {
    const lenders = first.demo!.lenders;
    const onChain = await fetchProgramAccountsByTag(net.rpc, first.lendingProgramId, 3);
    expect(onChain).toHaveLength(13);
    expect(onChain).toEqual(lenders.flatMap((l) => l.pools.map((p) => p.address)).sort());

    const fetchPool = async (owner: Address, seed: bigint) => {
      const [pool] = await findPoolPda(first.lendingProgramId, owner, seed);
      return decodePoolAccount((await fetchData(net.rpc, pool))!);
    };
    // "Governance token credit": 18.5% -> 1850 bps, 14 days, default $10 minimum, $10000 maximum.
    const governance = await fetchPool(lenders[0]!.address, 2n);
    expect(governance).toMatchObject({
      poolType: "defi-pool",
      status: "Open",
      currencyMint: USDC,
      loanAprBps: 1850,
      mortgageAprBps: 0,
      minDurationSeconds: 86_400n,
      maxDurationSeconds: 1_209_600n,
      minAmountMicroUsd: 10_000_000n,
      maxAmountMicroUsd: 10_000_000_000n,
    });
    expect(governance.collections.map((c) => [c.id, c.ltvBps, c.exposureBps])).toEqual([
      [token("JUP"), 5000, 5000],
      [token("JTO"), 4500, 4000],
    ]);
    // "Jito staking credit": 12.75% -> 1275 bps, 90 days, $25 .. $20000.
    expect(await fetchPool(lenders[2]!.address, 2n)).toMatchObject({
      loanAprBps: 1275,
      maxDurationSeconds: 7_776_000n,
      minAmountMicroUsd: 25_000_000n,
      maxAmountMicroUsd: 20_000_000_000n,
    });
    // "Apes long term (SOL)": nft-pool in SOL on the AQUA collection.
    const apes = await fetchPool(lenders[1]!.address, 3n);
    expect(apes).toMatchObject({
      poolType: "nft-pool",
      currencyMint: SOL,
      loanAprBps: 2800,
      maxDurationSeconds: 5_184_000n,
    });
    expect(apes.collections.map((c) => [c.id, c.ltvBps, c.exposureBps])).toEqual([
      [collection("AQUA"), 6500, 5000],
    ]);

    // Every pool equals its form values turned into program params, and draws on its owner's bank.
    for (const [i, lender] of lenders.entries()) {
      for (const [j, form] of DEMO_LENDERS[i]!.pools.entries()) {
        const pool = await fetchPool(lender.address, BigInt(j + 1));
        const [bank] = await findBankPda(first.lendingProgramId, lender.address, address(form.poolCurrency));
        const { params, poolType } = getPoolCreationPlan({ ...form, owner: lender.address, bank });
        expect(pool).toMatchObject({
          owner: lender.address,
          bank,
          poolType,
          loanAprBps: params.loanAprBps,
          maxDurationSeconds: params.maxDurationSeconds,
          minAmountMicroUsd: params.minAmountMicroUsd,
          maxAmountMicroUsd: params.maxAmountMicroUsd,
          totalLoans: 0n,
        });
        expect(
          pool.collections.map((c) => ({ id: c.id, ltvBps: c.ltvBps, exposureBps: c.exposureBps })),
        ).toEqual(params.collections);
      }
    }
    // Pool types and APRs are varied.
    const all = lenders.flatMap((l) => l.pools);
    expect(new Set(all.map((p) => p.poolType))).toEqual(new Set(["nft-pool", "defi-pool"]));
    expect(new Set(all.map((p) => p.plan.params.loanAprBps)).size).toBe(all.length);
  });

  it("deploys the local swap venue, pins it in the lending program's Venues and seeds the demo pairs at their prices", async () => {
    const venue = first.swapVenue!;
    expect([venue.programAction, venue.venuesAction]).toEqual(["deployed", "pinned"]);
    const [venuesAddress] = await findVenuesPda(first.lendingProgramId);
    expect(decodeVenuesAccount((await fetchData(net.rpc, venuesAddress))!).swapProgram).toBe(venue.programId);
    expect(venue.pools.map((p) => p.pair)).toEqual(getDemoSwapPairs().map(([x, y]) => `${x}/${y}`));
    expect(venue.pools.every((p) => p.action === "created")).toBe(true);
    // JUP/USDC: 200,000 USD a side at 0.8 USD per JUP
    const jupUsdc = venue.pools.find((p) => p.pair === "JUP/USDC")!;
    const pool = decodeSwapPool((await fetchData(net.rpc, jupUsdc.address))!);
    const reserves = new Map([
      [pool.mintA, await fetchTokenAmount(net.rpc, pool.vaultA)],
      [pool.mintB, await fetchTokenAmount(net.rpc, pool.vaultB)],
    ]);
    expect(reserves.get(USDC)).toBe(200_000_000_000n);
    expect(reserves.get(token("JUP"))).toBe(250_000_000_000n);
    const solUsdc = decodeSwapPool((await fetchData(net.rpc, venue.pools[0]!.address))!);
    const sol = solUsdc.mintA === SOL ? solUsdc.vaultA : solUsdc.vaultB;
    expect(await fetchTokenAmount(net.rpc, sol)).toBe(1_333_333_333_333n);
  });

  it("deploys the local lending venue and opens a funded reserve per currency, but pins marginfi as the demo's lending venue", async () => {
    const venue = first.lendingVenue!;
    expect([venue.programAction, venue.venuesAction]).toEqual(["deployed", "skipped"]);
    const [venuesAddress] = await findVenuesPda(first.lendingProgramId);
    const data = (await fetchData(net.rpc, venuesAddress))!;
    const venues = decodeVenuesAccount(data);
    expect(venues.lendingProgram).toBe(MARGINFI_PROGRAM);
    expect(first.marginfi!.venuesAction).toBe("pinned");
    // the group's first 16 bytes, where the Venues account pins it (LAYOUT.md)
    expect(Buffer.from(data.subarray(112, 128))).toEqual(
      Buffer.from(getAddressEncoder().encode(first.marginfi!.group).subarray(0, 16)),
    );
    expect(venues.swapProgram).toBe(first.swapVenue!.programId);
    expect(venue.reserves.map((r) => [r.currency, r.action])).toEqual([
      ["USDC", "created"],
      ["SOL", "created"],
    ]);
    const usdc = decodeLendingReserve((await fetchData(net.rpc, venue.reserves[0]!.address))!);
    expect(usdc).toMatchObject({ mint: USDC, rateBps: DEMO_RESERVE_RATES_BPS.USDC, totalShares: 0n });
    // the yield fund: 50,000 USD of USDC
    expect(await fetchTokenAmount(net.rpc, usdc.vault)).toBe(50_000_000_000n);
  });

  it("deploys the local NFT market, pins it beside the other venues and seeds the demo listings and bids", async () => {
    const market = first.nftMarket!;
    expect([market.programAction, market.venuesAction]).toEqual(["deployed", "pinned"]);
    const [venuesAddress] = await findVenuesPda(first.lendingProgramId);
    const venues = decodeVenuesAccount((await fetchData(net.rpc, venuesAddress))!);
    expect([venues.marketProgram, venues.swapProgram, venues.lendingProgram]).toEqual([
      market.programId,
      first.swapVenue!.programId,
      MARGINFI_PROGRAM,
    ]);
    // three listings of each of the four classic, the one pNFT, the one Core and the one compressed demo collections,
    // two bids each in SOL and USDC
    expect([market.listings, market.bids]).toEqual([21, 28]);
    const accounts = await net.rpc
      .getProgramAccounts(market.programId, { encoding: "base64", commitment: "confirmed" })
      .send();
    const bids = accounts
      .filter((a) => a.account.data[0].length > 0 && Buffer.from(a.account.data[0], "base64").length === 192)
      .map((a) => decodeMarketBid(Buffer.from(a.account.data[0], "base64")));
    const otters = DEMO_COLLECTIONS.find((c) => c.symbol === "OTTR")!;
    expect(
      bids
        .filter((b) => b.collection === otters.collectionId && b.currencyMint === USDC)
        .map((b) => b.price)
        .sort(),
    ).toEqual([1_500_000_000n, 1_687_500_000n]);
    // the Core collection's book: three Core assets owned by their listings, bids of 90% and 80% of its 8 SOL floor
    const koi = DEMO_CORE_COLLECTIONS[0]!;
    const coreListings = accounts
      .map((a) => ({ address: a.pubkey, data: Buffer.from(a.account.data[0], "base64") }))
      .filter((a) => a.data.length === 160)
      .map((a) => ({ address: a.address, listing: decodeMarketListing(a.data) }))
      .filter((l) => l.listing.standard === "core");
    expect(coreListings.map((l) => l.listing.escrow)).toEqual([
      koi.collectionId,
      koi.collectionId,
      koi.collectionId,
    ]);
    for (const l of coreListings) {
      const asset = (await fetchData(net.rpc, l.listing.nftMint))!;
      expect(getAddressDecoder().decode(asset.subarray(1, 33))).toBe(l.address);
    }
    expect(
      bids
        .filter((b) => b.collection === koi.collectionId && b.currencyMint === WRAPPED_SOL_MINT_ADDRESS)
        .map((b) => b.price)
        .sort(),
    ).toEqual([6_400_000_000n, 7_200_000_000n]);
    // the pNFT collection's book: three pNFTs held by their listings (in the listing PDA's token account, moved
    // there by Token Metadata under the demo rule set), bids of 90% and 80% of its 5 SOL floor
    const petrels = DEMO_PROGRAMMABLE_COLLECTIONS[0]!;
    const pnftListings = accounts
      .map((a) => ({ address: a.pubkey, data: Buffer.from(a.account.data[0], "base64") }))
      .filter((a) => a.data.length === 160)
      .map((a) => ({ address: a.address, listing: decodeMarketListing(a.data) }))
      .filter((l) => l.listing.standard === "programmable");
    expect(pnftListings).toHaveLength(3);
    for (const l of pnftListings) {
      const held = (await fetchData(net.rpc, l.listing.escrow))!;
      expect(getAddressDecoder().decode(held.subarray(0, 32))).toBe(l.listing.nftMint);
      expect(getAddressDecoder().decode(held.subarray(32, 64))).toBe(l.address);
      expect(Buffer.from(held).readBigUInt64LE(64)).toBe(1n);
    }
    expect(
      bids
        .filter((b) => b.collection === petrels.collectionId && b.currencyMint === WRAPPED_SOL_MINT_ADDRESS)
        .map((b) => b.price)
        .sort(),
    ).toEqual([4_000_000_000n, 4_500_000_000n]);
    // the compressed collection's book: three leaves owned by their listings (the tree's root in DAS says so),
    // the collection recorded from the leaves' verified metadata, bids of 90% and 80% of its 2 SOL floor
    const shells = DEMO_COMPRESSED_COLLECTIONS[0]!;
    const compressedListings = accounts
      .map((a) => ({ address: a.pubkey, data: Buffer.from(a.account.data[0], "base64") }))
      .filter((a) => a.data.length === 160)
      .map((a) => ({ address: a.address, listing: decodeMarketListing(a.data) }))
      .filter((l) => l.listing.standard === "compressed");
    expect(compressedListings.map((l) => l.listing.escrow)).toEqual([
      shells.collectionId,
      shells.collectionId,
      shells.collectionId,
    ]);
    for (const l of compressedListings) {
      const asset = (await (
        await fetch(net.rpcUrl, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "getAsset",
            params: { id: l.listing.nftMint },
          }),
        })
      ).json()) as { result: { ownership: { owner: string } } };
      expect(asset.result.ownership.owner).toBe(l.address);
    }
    expect(
      bids
        .filter((b) => b.collection === shells.collectionId && b.currencyMint === WRAPPED_SOL_MINT_ADDRESS)
        .map((b) => b.price)
        .sort(),
    ).toEqual([1_600_000_000n, 1_800_000_000n]);
  });

  it("is idempotent: a second run sends nothing and returns the same ids", async () => {
    const balances = async () =>
      Promise.all(
        [first.adminAddress, ...first.demo!.lenders.map((l) => l.address)].map(
          async (a) => (await net.rpc.getBalance(a, { commitment: "confirmed" }).send()).value,
        ),
      );
    const before = await balances();
    const started = Date.now();
    const second = await run();
    const elapsedMs = Date.now() - started;
    expect(second.lendingProgramId).toBe(first.lendingProgramId);
    expect([second.adminAddress, second.oracleAddress, second.treasuryAddress]).toEqual([
      first.adminAddress,
      first.oracleAddress,
      first.treasuryAddress,
    ]);
    expect(second.programAction).toBe("unchanged");
    expect(second.configAction).toBe("unchanged");
    expect(second.swapVenue).toMatchObject({ programAction: "unchanged", venuesAction: "unchanged" });
    expect(second.swapVenue!.pools.map((p) => p.action)).toEqual(Array(7).fill("unchanged"));
    expect(second.lendingVenue).toMatchObject({ programAction: "unchanged", venuesAction: "skipped" });
    expect(second.marginfi).toMatchObject({
      groupAction: "unchanged",
      marketAction: "unchanged",
      venuesAction: "unchanged",
    });
    expect(second.lendingVenue!.reserves.map((r) => r.action)).toEqual(["unchanged", "unchanged"]);
    expect(second.nftMarket).toMatchObject({
      programAction: "unchanged",
      venuesAction: "unchanged",
      listings: 0,
      bids: 0,
    });
    expect(second.demo!.lenders.flatMap((l) => l.banks.map((b) => b.action))).toEqual(
      Array(6).fill("unchanged"),
    );
    expect(second.demo!.lenders.flatMap((l) => l.pools.map((p) => p.action))).toEqual(
      Array(13).fill("unchanged"),
    );
    // No fee paid by anyone: no transaction was sent.
    expect(await balances()).toEqual(before);
    expect(await fetchProgramAccountsByTag(net.rpc, first.lendingProgramId, 3)).toHaveLength(13);
    const [bank] = await findBankPda(first.lendingProgramId, first.demo!.lenders[0]!.address, USDC);
    expect(decodeBankAccount((await fetchData(net.rpc, bank))!).totalLiquidity).toBe(85_000_000_000n);
    expect(elapsedMs).toBeLessThan(10_000);
  });

  it("rotates the oracle with UpdateConfig when the data dir's oracle key changes", async () => {
    rmSync(join(dataDir, "keys", "oracle.json"));
    const rotated = await run();
    expect(rotated.configAction).toBe("updated");
    expect(rotated.oracleAddress).not.toBe(first.oracleAddress);
    const [configAddress] = await findConfigPda(first.lendingProgramId);
    const config = decodeConfigAccount((await fetchData(net.rpc, configAddress))!);
    expect(config.oracle).toBe(rotated.oracleAddress);
    expect(config.treasury).toBe(first.treasuryAddress);
    expect(readClusterInfo(dataDir).oracle).toBe(rotated.oracleAddress);
  });

  it("upgrades a changed .so in place, then leaves it alone; the upgraded program runs", async () => {
    const so = readFileSync(LENDING_SO_PATH);
    const changedPath = join(dataDir, "lending-changed.so");
    writeFileSync(changedPath, Buffer.concat([so, Buffer.from("cistern bootstrap upgrade test")]));
    const upgraded = await run({ lendingSoPath: changedPath });
    expect(upgraded.programAction).toBe("upgraded");
    expect(upgraded.lendingProgramId).toBe(first.lendingProgramId);
    const programData = await fetchData(net.rpc, await findProgramDataAddress(first.lendingProgramId));
    const changed = readFileSync(changedPath);
    expect(
      Buffer.from(
        programData!.subarray(PROGRAMDATA_METADATA_SIZE, PROGRAMDATA_METADATA_SIZE + changed.length),
      ),
    ).toEqual(changed);
    expect((await run({ lendingSoPath: changedPath })).programAction).toBe("unchanged");
    // A config rotation after the upgrade executes the upgraded program.
    rmSync(join(dataDir, "keys", "oracle.json"));
    const after = await run({ lendingSoPath: changedPath });
    expect(after.configAction).toBe("updated");
    const [configAddress] = await findConfigPda(first.lendingProgramId);
    expect(decodeConfigAccount((await fetchData(net.rpc, configAddress))!).oracle).toBe(after.oracleAddress);
    expect(existsSync(join(dataDir, "cluster.json"))).toBe(true);
  });
});
