// The mortgage of a programmable NFT listed on the pinned NFT market (TakeMortgage, data byte 121 = 1, with the
// market's BuyPnft naming the borrower as the buyer and the new owner), through the real Token Metadata and Token
// Auth Rules: the pNFT lands in the borrower's own associated token account, is delegated to the loan PDA and locked
// there (escrowless, as at TakeLoan), and the rule set is asked about the liquidation's transfers. The program trusts
// the venue for nothing: it reads the borrower's token account and the metadata after the purchase and measures the
// price on the borrower's currency account. Adversarial cases first; then Repay and Liquidate of the mortgage.
import { readFileSync } from "node:fs";
import { getAssociatedTokenAddress } from "@cistern/localnet";
import {
  type AccountReader,
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  findConfigPda,
  findVenuesPda,
  getBuyPnftInstruction,
  getListPnftInstruction,
  getTakeMortgageInstruction,
  LENDING_ERROR_CODE,
  type ProgrammableCustody,
  readNftCustody,
  SYSVAR_INSTRUCTIONS_ADDRESS,
  TOKEN_AUTH_RULES_PROGRAM_ADDRESS,
  TOKEN_METADATA_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
} from "@cistern/sdk";
import {
  type Address,
  address,
  generateKeyPairSigner,
  getAddressDecoder,
  type Instruction,
  type KeyPairSigner,
  lamports,
} from "@solana/kit";
import { getCreateAssociatedTokenIdempotentInstructionAsync } from "@solana-program/token";
import { describe, expect, it } from "vitest";
import { computeLimit, expectOk, wireSize } from "./support/kit.ts";
import { MARKET_SO } from "./support/nft-sale-world.ts";
import {
  createPnftCollection,
  liquidatePnftIx,
  mintPnft,
  type Pnft,
  type PnftWorld,
  pnftWorld,
  repayPnftIx,
  SYSTEM,
} from "./support/pnft-world.ts";
import { createTokenAccount, mintTo, tokenBalance } from "./support/tokens.ts";
import {
  attestation,
  bankOf,
  createPool,
  DAY,
  loanOf,
  nftTerms,
  ONE,
  pinMarket,
  poolOf,
  poolParams,
} from "./support/world.ts";

const E = LENDING_ERROR_CODE;
const MORTGAGE_APR_BPS = 1500;
const MORTGAGE_FLAGS = { autoSell: false, mortgage: true, compounding: false };
const CU_LIMIT = 700_000;
const dec = getAddressDecoder();
let poolSeed = 400n; // pnftWorld's pools are seeds 100..

interface MortgageWorld extends PnftWorld {
  market: Address;
  seller: KeyPairSigner;
  sellerAta: Address;
  /** A pool of the collection without the mortgage flag (pnftPool is the one that offers mortgages). */
  plainPool: Address;
}

/** A pNFT world whose rule set allows `allowed` (the lending program and the market by default), the market pinned, a
 * pool of the collection offering mortgages, a seller. */
async function mortgageWorld(
  allowed: (program: Address, market: Address) => Address[] = (program, market) => [program, market],
): Promise<MortgageWorld> {
  const market = (await generateKeyPairSigner()).address;
  const w = await pnftWorld((program) => allowed(program, market));
  await pinMarket(w, market, new Uint8Array(readFileSync(MARKET_SO)));
  const mortgagePool = await createPool(
    w.h,
    w.lender,
    w.currency,
    "nft-pool",
    poolSeed++,
    poolParams(w.pnftCollection, { flags: MORTGAGE_FLAGS, mortgageAprBps: MORTGAGE_APR_BPS }),
  );
  // the same mortgage rate, the flag off
  const plainPool = await createPool(
    w.h,
    w.lender,
    w.currency,
    "nft-pool",
    poolSeed++,
    poolParams(w.pnftCollection, { mortgageAprBps: MORTGAGE_APR_BPS }),
  );
  const seller = await w.h.wallet();
  return {
    ...w,
    market,
    seller,
    sellerAta: await createTokenAccount(w.h, w.currency, seller.address),
    plainPool,
    pnftPool: mortgagePool,
  };
}

/** The SDK's chain read over the test's LiteSVM. */
const reader =
  (s: MortgageWorld): AccountReader =>
  async (addresses) =>
    addresses.map((a) => {
      const account = s.h.svm.getAccount(a);
      return account.exists ? { owner: account.programAddress, data: account.data } : null;
    });

async function custodyOf(s: MortgageWorld, mint: Address, owner: Address): Promise<ProgrammableCustody> {
  const tokenAccount = address(getAssociatedTokenAddress(owner, mint));
  const c = await readNftCustody(reader(s), { mint, tokenAccount });
  if (c.standard !== "ProgrammableNft") throw new Error(`${mint} is not a pNFT`);
  return c;
}

interface Listed {
  n: Pnft;
  listing: Address;
  price: bigint;
}

/** The seller's pNFT of `collection` listed on the market at `price`. */
async function listPnft(s: MortgageWorld, price: bigint, collection = s.pnftCollection, verified = true) {
  const n = await mintPnft(s, collection, s.seller.address, verified);
  const ix = await getListPnftInstruction({
    programAddress: s.market,
    seller: s.seller,
    nft: await custodyOf(s, n.mint, s.seller.address),
    currencyMint: s.currency,
    price,
  });
  expectOk(await s.h.trySend([computeLimit(400_000), ix], s.seller));
  return { n, listing: ix.listing, price } satisfies Listed;
}

/** The pNFT as the borrower holds it after the purchase (the Repay / Liquidate helpers' view). */
async function borrowerPnft(s: MortgageWorld, n: Pnft): Promise<Pnft> {
  const c = await custodyOf(s, n.mint, s.borrower.address);
  return { ...n, token: c.tokenAccount, record: [c.tokenRecord, c.tokenRecordBump] };
}

/** The borrower's TakeMortgage of `listed` (the market's BuyPnft, the borrower buyer and new owner): `principal` from
 * the pool, the rest of the price from their currency account. */
async function mortgageIx(
  s: MortgageWorld,
  listed: Listed,
  principal: bigint,
  over: { pool?: Address; attested?: Address; value?: bigint; buyMint?: Address; market?: Address } = {},
) {
  const terms = nftTerms(s, {
    principalBaseUnits: principal,
    expectedAprBps: MORTGAGE_APR_BPS,
    attestation: attestation(s, {
      collection: over.attested ?? s.pnftCollection,
      collateralValueBaseUnits: over.value ?? listed.price,
    }),
  });
  const custody = await custodyOf(s, listed.n.mint, s.borrower.address);
  const buyCustody = over.buyMint ? await custodyOf(s, over.buyMint, s.borrower.address) : custody;
  const buy = await getBuyPnftInstruction({
    programAddress: over.market ?? s.market,
    buyer: s.borrower,
    payFrom: s.borrowerAta,
    sellerCurrencyAccount: s.sellerAta,
    seller: s.seller.address,
    newOwner: s.borrower.address,
    nft: buyCustody,
    maxPrice: listed.price,
  });
  const ix = await getTakeMortgageInstruction({
    programAddress: s.program,
    borrower: s.borrower,
    oracle: s.oracle,
    pool: over.pool ?? s.pnftPool,
    bank: s.bank,
    collateralMint: listed.n.mint,
    borrowerCurrencyTokenAccount: s.borrowerAta,
    buy,
    custody,
    poolOwner: s.lender.address,
    ...terms,
  });
  return { ixs: [computeLimit(CU_LIMIT), ix] as Instruction[], loan: ix.loan, escrow: ix.escrow };
}

/** Token record: key, bump, state (0 Unlocked, 1 Locked), rule set revision Option<u64>, delegate Option<Pubkey>. */
function tokenRecord(s: MortgageWorld, a: Address) {
  const d = s.h.svm.getAccount(a);
  if (!d.exists) return null;
  const data = d.data;
  const at = 3 + (data[3] === 1 ? 9 : 1);
  return { state: data[2], delegate: data[at] === 1 ? dec.decode(data.subarray(at + 1, at + 33)) : null };
}

const holds = (s: MortgageWorld, token: Address) => (s.h.exists(token) ? tokenBalance(s.h, token) : 0n);

/** Nothing bought, nothing lent: the listing still holds the pNFT, no loan, the balances as before. */
function expectNothingMoved(
  s: MortgageWorld,
  listed: Listed,
  loan: Address,
  before: { borrower: bigint; vault: bigint },
) {
  expect(s.h.exists(listed.listing)).toBe(true);
  expect(holds(s, address(getAssociatedTokenAddress(listed.listing, listed.n.mint)))).toBe(1n);
  expect(holds(s, address(getAssociatedTokenAddress(s.borrower.address, listed.n.mint)))).toBe(0n);
  expect(s.h.exists(loan)).toBe(false);
  expect(tokenBalance(s.h, s.borrowerAta)).toBe(before.borrower);
  expect(tokenBalance(s.h, s.vault)).toBe(before.vault);
  expect(tokenBalance(s.h, s.sellerAta)).toBe(0n);
  expect(poolOf(s, s.pnftPool).totalMortgages).toBe(0n);
}

const balances = (s: MortgageWorld) => ({
  borrower: tokenBalance(s.h, s.borrowerAta),
  vault: tokenBalance(s.h, s.vault),
});

/** The accounts the API's protocol lookup table holds that a pNFT mortgage names (apps/api protocol-lookup-table.ts). */
async function protocolTable(s: MortgageWorld) {
  const [[config], [venues]] = await Promise.all([findConfigPda(s.program), findVenuesPda(s.program)]);
  const table = (await generateKeyPairSigner()).address;
  return {
    [table]: [
      TOKEN_METADATA_PROGRAM_ADDRESS,
      TOKEN_AUTH_RULES_PROGRAM_ADDRESS,
      SYSVAR_INSTRUCTIONS_ADDRESS,
      SYSTEM,
      TOKEN_PROGRAM_ADDRESS,
      ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
      config,
      venues,
    ],
  };
}

describe("mortgage of a listed pNFT (TakeMortgage + the market's BuyPnft, escrowless)", {
  timeout: 240_000,
}, () => {
  it("refuses a pNFT outside the pool's collections, an unverified collection, a listing of another mint than account 8, a price above the LTV; nothing bought, nothing lent", async () => {
    const s = await mortgageWorld();
    const before = balances(s);

    // a pNFT of another verified collection, even with an attestation naming the pool's
    const otherCollection = await createPnftCollection(s, s.authority, s.ruleSet, "Look-alikes");
    const outsider = await listPnft(s, 100n * ONE, otherCollection);
    const a = await mortgageIx(s, outsider, 50n * ONE);
    expect((await s.h.trySend(a.ixs, s.borrower)).customCode).toBe(E.CollectionNotInPool);
    expectNothingMoved(s, outsider, a.loan, before);

    // a pNFT naming the pool's collection unverified
    const unverified = await listPnft(s, 100n * ONE, s.pnftCollection, false);
    const b = await mortgageIx(s, unverified, 50n * ONE);
    expect((await s.h.trySend(b.ixs, s.borrower)).customCode).toBe(E.CollectionNotVerified);
    expectNothingMoved(s, unverified, b.loan, before);

    // account 8 one pNFT, the market's purchase another listing
    const wanted = await listPnft(s, 100n * ONE);
    const cheap = await listPnft(s, 100n * ONE);
    const c = await mortgageIx(s, wanted, 50n * ONE, { buyMint: cheap.n.mint });
    expect((await s.h.trySend(c.ixs, s.borrower)).customCode).toBe(E.InvalidMint);
    expectNothingMoved(s, wanted, c.loan, before);
    expectNothingMoved(s, cheap, c.loan, before);

    // the oracle values it at twice the price, the loan is 75% of what is paid: LtvExceeded (the LTV of the price)
    const d = await mortgageIx(s, wanted, 75n * ONE, { value: 200n * ONE });
    expect((await s.h.trySend(d.ixs, s.borrower)).customCode).toBe(E.LtvExceeded);
    expectNothingMoved(s, wanted, d.loan, before);
  });

  it("refuses an unpinned market, a pool without the mortgage flag, a rule set that does not allow the lending program", async () => {
    const s = await mortgageWorld();
    const before = balances(s);
    const listed = await listPnft(s, 100n * ONE);
    // the market's code at an address the admin did not pin
    const rogue = (await generateKeyPairSigner()).address;
    s.h.svm.addProgram(rogue, new Uint8Array(readFileSync(MARKET_SO)));
    const a = await mortgageIx(s, listed, 50n * ONE, { market: rogue });
    a.ixs[1] = {
      ...a.ixs[1]!,
      accounts: a.ixs[1]!.accounts!.map((m, i) => (i === 14 ? { ...m, address: rogue } : m)),
    };
    expect((await s.h.trySend(a.ixs, s.borrower)).customCode).toBe(E.InvalidVenue);
    expectNothingMoved(s, listed, a.loan, before);
    // a pool that lends against the collection at the same mortgage rate, without the mortgage flag
    const b = await mortgageIx(s, listed, 50n * ONE, { pool: s.plainPool });
    expect((await s.h.trySend(b.ixs, s.borrower)).customCode).toBe(E.MortgageDisabled);
    expectNothingMoved(s, listed, b.loan, before);

    // a rule set that allows the market (so the pNFT could be listed) but not the lending program: the loan PDA may
    // not be its delegate; the whole purchase is refused inside Token Metadata
    const strict = await mortgageWorld((_program, market) => [market]);
    const strictBefore = balances(strict);
    const strictListed = await listPnft(strict, 100n * ONE);
    const c = await mortgageIx(strict, strictListed, 50n * ONE);
    const refused = await strict.h.trySend(c.ixs, strict.borrower);
    expect(refused.ok).toBe(false);
    expect(refused.logs.join("\n")).toMatch(
      /Program auth9SigNpDKz4sJJ1DfCTuZrZNSAgh9sFD3rboVmgg failed|Program metaqbxx\w+ failed/,
    );
    expectNothingMoved(strict, strictListed, c.loan, strictBefore);
  });

  it("buys into the borrower's account, delegated to the loan PDA and locked (donations beforehand block nothing); Repay unlocks and revokes", async () => {
    const s = await mortgageWorld();
    const listed = await listPnft(s, 100n * ONE);
    const m = await mortgageIx(s, listed, 50n * ONE);
    // donations before: tokens into the bank's vault, SOL to the loan PDA and to the borrower's token account address
    await mintTo(s.h, s.currency, s.vault, 7n);
    s.h.svm.airdrop(m.loan, lamports(1_000_000n));
    s.h.svm.airdrop(m.escrow, lamports(1_000_000n));
    const before = balances(s);
    const bankBefore = bankOf(s);
    const bytesInline = await wireSize(s.h, m.ixs, s.borrower);
    const bytes = await wireSize(s.h, m.ixs, s.borrower, await protocolTable(s));
    const out = expectOk(await s.h.trySend(m.ixs, s.borrower));
    console.log(
      `pNFT mortgage (TakeMortgage + BuyPnft + Delegate + Lock + 2 Validate): ${out.computeUnits} CU, ${bytesInline} B inline, ${bytes} B with the protocol lookup table`,
    );
    expect(bytes).toBeLessThanOrEqual(1232);

    const n = await borrowerPnft(s, listed.n);
    expect(m.escrow).toBe(n.token);
    expect(holds(s, n.token)).toBe(1n);
    expect(tokenRecord(s, n.record[0])).toEqual({ state: 1, delegate: m.loan });
    expect(loanOf(s, m.loan)).toMatchObject({
      kind: "Mortgage",
      status: "Ongoing",
      nftType: "ProgrammableNft",
      aprBps: MORTGAGE_APR_BPS,
      principal: 50n * ONE,
      escrow: n.token,
      collateralMint: listed.n.mint,
      collection: s.pnftCollection,
    });
    expect([...s.h.data(m.loan).subarray(385, 388)]).toEqual([n.metadata[1], n.edition[1], n.record[1]]);
    expect(tokenBalance(s.h, s.sellerAta)).toBe(100n * ONE); // the seller paid
    expect(tokenBalance(s.h, s.borrowerAta)).toBe(before.borrower - 50n * ONE); // 100 paid, 50 lent
    expect(tokenBalance(s.h, s.vault)).toBe(before.vault - 50n * ONE); // the pool paid the principal
    expect(bankOf(s).availableLiquidity).toBe(bankBefore.availableLiquidity - 50n * ONE);
    expect(poolOf(s, s.pnftPool)).toMatchObject({ totalMortgages: 1n, currentLoans: 1n });
    expect(s.h.exists(listed.listing)).toBe(false);

    // the same listing cannot be bought twice, nor the borrower's own pNFT mortgaged again
    const again = await mortgageIx(s, listed, 50n * ONE);
    expect((await s.h.trySend(again.ixs, s.borrower)).ok).toBe(false);

    s.h.advance(DAY);
    const repay = await repayPnftIx(s, m.loan, n);
    const repaid = expectOk(await s.h.trySend([computeLimit(400_000), repay], s.borrower));
    console.log(`pNFT mortgage repay: ${repaid.computeUnits} CU`);
    expect(loanOf(s, m.loan).status).toBe("Repaid");
    expect(holds(s, n.token)).toBe(1n);
    expect(tokenRecord(s, n.record[0])).toEqual({ state: 0, delegate: null });
    const token = s.h.svm.getAccount(n.token);
    expect(token.exists && dec.decode(token.data.subarray(32, 64))).toBe(s.borrower.address);
  });

  it("a stranger's empty associated token account of the pNFT for the buyer, created before, blocks nothing", async () => {
    const s = await mortgageWorld();
    const listed = await listPnft(s, 100n * ONE);
    const m = await mortgageIx(s, listed, 50n * ONE);
    const stranger = await s.h.wallet();
    expectOk(
      await s.h.trySend(
        [
          await getCreateAssociatedTokenIdempotentInstructionAsync({
            payer: stranger,
            owner: s.borrower.address,
            mint: listed.n.mint,
          }),
        ],
        stranger,
      ),
    );
    expect(s.h.exists(m.escrow)).toBe(true);
    expect(holds(s, m.escrow)).toBe(0n);
    expectOk(await s.h.trySend(m.ixs, s.borrower));
    const n = await borrowerPnft(s, listed.n);
    expect(holds(s, n.token)).toBe(1n);
    expect(tokenRecord(s, n.record[0])).toEqual({ state: 1, delegate: m.loan });
    expect(loanOf(s, m.loan)).toMatchObject({
      kind: "Mortgage",
      nftType: "ProgrammableNft",
      escrow: n.token,
    });
  });

  it("liquidates a mortgage after expiry + grace: the pool owner holds the pNFT", async () => {
    const s = await mortgageWorld();
    const listed = await listPnft(s, 100n * ONE);
    const m = await mortgageIx(s, listed, 50n * ONE);
    expectOk(await s.h.trySend(m.ixs, s.borrower));
    const n = await borrowerPnft(s, listed.n);
    const liquidator = await s.h.wallet();
    // not before expiry + grace
    const early = await liquidatePnftIx(s, liquidator, m.loan, n);
    expect((await s.h.trySend([computeLimit(400_000), early], liquidator)).customCode).toBe(
      E.NotLiquidatable,
    );
    s.h.advance(30n * DAY);
    const liq = await liquidatePnftIx(s, liquidator, m.loan, n);
    const out = expectOk(await s.h.trySend([computeLimit(400_000), liq], liquidator));
    console.log(`pNFT mortgage liquidate: ${out.computeUnits} CU`);
    expect(loanOf(s, m.loan).status).toBe("Liquidated");
    expect(holds(s, liq.dest)).toBe(1n);
    const dest = s.h.svm.getAccount(liq.dest);
    expect(dest.exists && dec.decode(dest.data.subarray(32, 64))).toBe(s.lender.address);
    expect(holds(s, n.token)).toBe(0n);
    expect(tokenRecord(s, liq.destRecord)).toEqual({ state: 0, delegate: null });
  });
});
