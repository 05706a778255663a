// Loan requests (20 PostRequest, 21 CancelRequest, 22 FillRequest) of a programmable NFT, custody by ownership
// (nftType 4): through the real Token Metadata and Token Auth Rules programs, the request PDA owns the pNFT in its
// associated token account while the request is open; a lender's fill moves it (Transfer v1, the request PDA the owner)
// into the new loan PDA's associated token account, which then ends the loan like any: Repay, Liquidate, Extend,
// Refinance (LAYOUT.md "Loan requests of a programmable NFT"). Who owns the pNFT is read from the chain after each step.

import { readFileSync } from "node:fs";
import type { RuleV2 } from "@cistern/localnet";
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  decodeRequestAccount,
  findAssociatedTokenPda,
  findConfigPda,
  findTokenRecordPda,
  findVenuesPda,
  getCancelRequestInstruction,
  getExtendInstruction,
  getFillRequestInstruction,
  getLiquidateInstruction,
  getLiquidateSellInstruction,
  getMarketSellInstruction,
  getPlaceBidInstruction,
  getPostRequestInstruction,
  getRefinanceInstruction,
  getRepayInstruction,
  getSellPnftToBidInstruction,
  LENDING_ERROR_CODE,
  type ProgrammableCustody,
  SYSVAR_INSTRUCTIONS_ADDRESS,
  TOKEN_AUTH_RULES_PROGRAM_ADDRESS,
  TOKEN_METADATA_PROGRAM_ADDRESS,
} from "@cistern/sdk";
import {
  AccountRole,
  type Address,
  type AddressesByLookupTableAddress,
  address,
  generateKeyPairSigner,
  getAddressDecoder,
  type Instruction,
  type KeyPairSigner,
  lamports,
} from "@solana/kit";
import { describe, expect, it } from "vitest";
import { computeLimit, expectOk, wireSize } from "./support/kit.ts";
import { MARKET_SO } from "./support/nft-sale-world.ts";
import { type PnftSaleWorld, pnftBid, pnftSaleWorld } from "./support/pnft-sale-world.ts";
import {
  meta,
  mintPnft,
  type Pnft,
  type PnftWorld,
  pnftWorld,
  SYSTEM,
  signs,
  W,
} from "./support/pnft-world.ts";
import { fundedTokenAccount, mintTo, tokenBalance } from "./support/tokens.ts";
import {
  attestation,
  bankOf,
  DAY,
  loanOf,
  nftTerms,
  ONE,
  otherLenderPool,
  pinMarket,
  poolOf,
} from "./support/world.ts";

const E = LENDING_ERROR_CODE;
const dec = getAddressDecoder();
const TOKEN = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
const PRINCIPAL = 50_000_000n;
const LIMIT = 600_000;
let nonce = 1n;

/** The pNFT as it sits in the borrower's token account (what PostRequest reads). */
const custodyOf = (n: Pnft): ProgrammableCustody => ({
  standard: "ProgrammableNft",
  mint: n.mint,
  tokenAccount: n.token,
  metadata: n.metadata[0],
  metadataBump: n.metadata[1],
  masterEdition: n.edition[0],
  masterEditionBump: n.edition[1],
  tokenRecord: n.record[0],
  tokenRecordBump: n.record[1],
  ruleSet: n.ruleSet,
});

/** The pNFT held by `holder` (a request or loan PDA) in its associated token account. */
async function heldBy(n: Pnft, holder: Address): Promise<ProgrammableCustody> {
  const tokenAccount = await findAssociatedTokenPda(holder, n.mint);
  const [tokenRecord, tokenRecordBump] = await findTokenRecordPda(n.mint, tokenAccount);
  return { ...custodyOf(n), tokenAccount, tokenRecord, tokenRecordBump, held: true };
}

/** Who holds the pNFT in `account`: its owner and amount (null: no such account). */
function holding(w: PnftWorld, account: Address) {
  const a = w.h.svm.getAccount(account);
  if (!a.exists) return null;
  return {
    owner: dec.decode(a.data.subarray(32, 64)),
    amount: new DataView(a.data.buffer, a.data.byteOffset).getBigUint64(64, true),
  };
}
const ata = (owner: Address, n: Pnft) => findAssociatedTokenPda(owner, n.mint);

function postIx(w: PnftWorld, n: Pnft, who: KeyPairSigner = w.borrower) {
  return getPostRequestInstruction({
    programAddress: w.program,
    borrower: who,
    collateralMint: n.mint,
    borrowerCollateralTokenAccount: n.token,
    currencyMint: w.currency,
    isDefi: false,
    nonce: nonce++,
    principalBaseUnits: PRINCIPAL,
    durationSeconds: 7n * DAY,
    collateralAmountBaseUnits: 1n,
    maxAprBps: 3000,
    custody: custodyOf(n),
  });
}

function cancelIx(w: PnftWorld, request: Address, n: Pnft, who: KeyPairSigner = w.borrower) {
  return getCancelRequestInstruction({
    programAddress: w.program,
    borrower: who,
    request,
    borrowerCollateralTokenAccount: n.token,
    custody: custodyOf(n),
  });
}

function fillIx(
  w: PnftWorld,
  request: Address,
  n: Pnft,
  lender: KeyPairSigner = w.lender,
  pool: { pool: Address; bank: Address } = { pool: w.pnftPool, bank: w.bank },
) {
  const rq = decodeRequestAccount(w.h.data(request));
  return getFillRequestInstruction({
    programAddress: w.program,
    lender,
    pool: pool.pool,
    bank: pool.bank,
    request,
    borrower: rq.borrower,
    collateralMint: rq.collateralMint,
    borrowerCurrencyTokenAccount: w.borrowerAta,
    nonce: nonce++,
    principalBaseUnits: rq.principal,
    durationSeconds: rq.durationSeconds,
    aprBps: 2500,
    custody: custodyOf(n),
  });
}

async function repayIx(w: PnftWorld, loan: Address, n: Pnft, pool = w.pnftPool, bank = w.bank) {
  return getRepayInstruction({
    programAddress: w.program,
    borrower: w.borrower,
    pool,
    bank,
    loan,
    borrowerCollateralTokenAccount: n.token,
    borrowerCurrencyTokenAccount: w.borrowerAta,
    custody: await heldBy(n, loan),
  });
}

async function liquidateIx(
  w: PnftWorld,
  liquidator: KeyPairSigner,
  loan: Address,
  n: Pnft,
  pool: { pool: Address; bank: Address; owner: Address } = {
    pool: w.pnftPool,
    bank: w.bank,
    owner: w.lender.address,
  },
) {
  const dest = await ata(pool.owner, n);
  const ix = await getLiquidateInstruction({
    programAddress: w.program,
    liquidator,
    pool: pool.pool,
    bank: pool.bank,
    loan,
    poolOwnerCollateralTokenAccount: dest,
    custody: { custody: await heldBy(n, loan), borrower: w.borrower.address, poolOwner: pool.owner },
  });
  return { ...ix, dest };
}

/** Extend (same pool) or, given a target, Refinance of a held pNFT's loan. */
async function moveIx(
  w: PnftWorld,
  n: Pnft,
  oldLoan: Address,
  target?: { pool: Address; bank: Address; lender: KeyPairSigner },
) {
  const input = {
    programAddress: w.program,
    borrower: w.borrower,
    oracle: w.oracle,
    pool: target?.pool ?? w.pnftPool,
    bank: target?.bank ?? w.bank,
    collateralMint: n.mint,
    borrowerCurrencyTokenAccount: w.borrowerAta,
    oldLoan,
    custody: await heldBy(n, oldLoan),
    poolOwner: (target?.lender ?? w.lender).address,
    ...nftTerms(w, { attestation: attestation(w, { collection: n.collection }) }),
  };
  return target
    ? getRefinanceInstruction({ ...input, oldPool: w.pnftPool, oldBank: w.bank })
    : getExtendInstruction(input);
}

/** The associated token program's CreateIdempotent: anyone opens `owner`'s associated token account of the mint. */
async function openAta(w: PnftWorld, payer: KeyPairSigner, owner: Address, n: Pnft): Promise<Address> {
  const account = await ata(owner, n);
  const ix: Instruction = {
    programAddress: ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
    accounts: [
      signs(payer, AccountRole.WRITABLE_SIGNER),
      { address: account, role: AccountRole.WRITABLE },
      { address: owner, role: AccountRole.READONLY },
      { address: n.mint, role: AccountRole.READONLY },
      { address: SYSTEM, role: AccountRole.READONLY },
      { address: TOKEN, role: AccountRole.READONLY },
    ],
    data: Uint8Array.of(1),
  };
  expectOk(await w.h.trySend([ix], payer));
  return account;
}

/** The protocol lookup table's addresses (apps/api getProtocolTableAddresses): what the API's transactions load. */
async function protocolTable(w: PnftWorld): Promise<AddressesByLookupTableAddress> {
  const [[config], [venues]] = await Promise.all([findConfigPda(w.program), findVenuesPda(w.program)]);
  const table = (await generateKeyPairSigner()).address;
  return {
    [table]: [
      TOKEN_METADATA_PROGRAM_ADDRESS,
      TOKEN_AUTH_RULES_PROGRAM_ADDRESS,
      SYSVAR_INSTRUCTIONS_ADDRESS,
      SYSTEM,
      TOKEN,
      ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
      config,
      venues,
    ],
  };
}

async function send(w: PnftWorld, ix: Instruction, payer: KeyPairSigner = w.borrower) {
  return w.h.trySend([computeLimit(LIMIT), ix], payer);
}

async function expectRefused(w: PnftWorld, ix: Instruction, code: number, payer: KeyPairSigner = w.borrower) {
  const out = await send(w, ix, payer);
  expect(out.ok, out.logs.slice(-6).join("\n")).toBe(false);
  expect(out.customCode).toBe(code);
}

type Bid = { bid: Address; vault: Address; bidder: Address };

/** LiquidateSell of a held pNFT's loan into `b`: 7 the loan PDA's associated token account, 8 its token record, 11
 * the borrower's wallet, 12.. SellPnftToBid selling from that same account (the loan the seller, the liquidator the
 * payer, the vault the proceeds account). */
async function autoSellIx(
  s: PnftSaleWorld,
  loan: Address,
  n: Pnft,
  b: Bid,
  liquidator: KeyPairSigner,
  pool = s.autoSellPool,
) {
  const custody = await heldBy(n, loan);
  const swap = await getSellPnftToBidInstruction({
    programAddress: s.market,
    seller: loan,
    sellerSignsByCpi: true,
    payer: liquidator,
    bid: b.bid,
    vault: b.vault,
    bidder: b.bidder,
    nft: custody,
    proceeds: s.vault,
    minPrice: 0n,
  });
  return getLiquidateSellInstruction({
    programAddress: s.program,
    liquidator,
    pool,
    bank: s.bank,
    loan,
    poolOwnerCollateralTokenAccount: custody.tokenAccount,
    swap,
    custody,
    borrower: s.borrower.address,
  });
}

/** The instruction with some of its accounts replaced. */
function edited(
  ix: Instruction,
  edit: (a: NonNullable<Instruction["accounts"]>[number][]) => void,
): Instruction {
  const accounts = [...(ix.accounts ?? [])];
  edit(accounts);
  return { ...ix, accounts };
}

/** A posted request of a fresh pNFT. */
async function posted(w: PnftWorld) {
  const n = await mintPnft(w);
  const post = await postIx(w, n);
  const out = expectOk(await send(w, post));
  return { n, post, out };
}

describe("loan requests of programmable NFTs (the real Token Metadata and Token Auth Rules)", {
  timeout: 180_000,
}, () => {
  it("post -> fill -> repay: the request PDA's account, then the loan PDA's, then the borrower's holds it", async () => {
    const w = await pnftWorld();
    const { n, post, out: posting } = await posted(w);
    const requestAta = await ata(post.request, n);
    expect(post.escrow).toBe(requestAta);
    expect(holding(w, requestAta)).toEqual({ owner: post.request, amount: 1n });
    expect(holding(w, n.token)?.amount ?? 0n).toBe(0n);
    const rq = decodeRequestAccount(w.h.data(post.request));
    expect(rq).toMatchObject({
      status: "Open",
      nftType: "ProgrammableNft",
      pnftHeld: true,
      collateralMint: n.mint,
      collection: n.collection,
      escrow: requestAta,
      custodyBumps: [n.metadata[1], n.edition[1]],
    });

    const fill = await fillIx(w, post.request, n);
    const before = tokenBalance(w.h, w.borrowerAta);
    const filling = expectOk(await send(w, fill, w.lender));
    const loanAta = await ata(fill.loan, n);
    expect(fill.escrow).toBe(loanAta);
    expect(holding(w, loanAta)).toEqual({ owner: fill.loan, amount: 1n });
    // the request's emptied account closed (Token Metadata closed its token record)
    expect(w.h.exists(requestAta)).toBe(false);
    expect(w.h.exists((await findTokenRecordPda(n.mint, requestAta))[0])).toBe(false);
    expect(tokenBalance(w.h, w.borrowerAta) - before).toBe(PRINCIPAL);
    const loan = loanOf(w, fill.loan);
    expect(loan).toMatchObject({
      status: "Ongoing",
      kind: "RequestLoan",
      nftType: "ProgrammableNft",
      pnftHeld: true,
      escrow: loanAta,
      collateralMint: n.mint,
    });
    expect([...w.h.data(fill.loan).subarray(385, 388)]).toEqual([n.metadata[1], n.edition[1], 0]);
    expect(decodeRequestAccount(w.h.data(post.request))).toMatchObject({ status: "Filled", loan: fill.loan });

    // a second fill of the same request: refused, nothing moves
    await expectRefused(w, await fillIx(w, post.request, n), E.RequestNotOpen, w.lender);
    expect(holding(w, loanAta)).toEqual({ owner: fill.loan, amount: 1n });

    w.h.advance(DAY);
    const repay = await repayIx(w, fill.loan, n);
    const repaying = expectOk(await send(w, repay));
    expect(loanOf(w, fill.loan).status).toBe("Repaid");
    expect(holding(w, n.token)).toEqual({ owner: w.borrower.address, amount: 1n });
    expect(w.h.exists(loanAta)).toBe(false);
    console.log(
      `held pNFT request: post ${posting.computeUnits} CU (${await wireSize(w.h, [computeLimit(LIMIT), post], w.borrower)} B), ` +
        `fill ${filling.computeUnits} CU (${await wireSize(w.h, [computeLimit(LIMIT), fill], w.lender)} B, ${await wireSize(w.h, [computeLimit(LIMIT), fill], w.lender, await protocolTable(w))} B with the protocol table), ` +
        `repay ${repaying.computeUnits} CU (${await wireSize(w.h, [computeLimit(LIMIT), repay], w.borrower)} B)`,
    );
  });

  it("post -> cancel: the pNFT returns to the borrower; a stranger cannot cancel, nor take it to their own account", async () => {
    const w = await pnftWorld();
    const { n, post } = await posted(w);
    const requestAta = await ata(post.request, n);
    const stranger = await w.h.wallet();
    // a stranger signing the cancel
    await expectRefused(w, await cancelIx(w, post.request, n, stranger), E.Unauthorized, stranger);
    // the borrower signing, the pNFT sent to the stranger's account (and its record)
    const theirs = await cancelIx(w, post.request, n);
    const theirAta = await ata(stranger.address, n);
    const [theirRecord] = await findTokenRecordPda(n.mint, theirAta);
    const accounts = [...(theirs.accounts ?? [])];
    accounts[3] = { address: theirAta, role: AccountRole.WRITABLE };
    accounts[accounts.length - 1] = { address: theirRecord, role: AccountRole.WRITABLE };
    await expectRefused(w, { ...theirs, accounts }, E.InvalidPda);
    // the request's own record named as the destination's: refused
    const wrongRecord = [...(theirs.accounts ?? [])];
    wrongRecord[wrongRecord.length - 1] = wrongRecord[8]!; // the block's token record (the request's account's)
    await expectRefused(w, { ...theirs, accounts: wrongRecord }, E.InvalidPda);
    expect(holding(w, requestAta)).toEqual({ owner: post.request, amount: 1n });

    const cancel = await cancelIx(w, post.request, n);
    const out = expectOk(await send(w, cancel));
    expect(holding(w, n.token)).toEqual({ owner: w.borrower.address, amount: 1n });
    expect(w.h.exists(requestAta)).toBe(false);
    expect(decodeRequestAccount(w.h.data(post.request)).status).toBe("Cancelled");
    console.log(
      `held pNFT cancel ${out.computeUnits} CU (${await wireSize(w.h, [computeLimit(LIMIT), cancel], w.borrower)} B)`,
    );
    // cancelled: neither a second cancel nor a fill
    await expectRefused(w, await cancelIx(w, post.request, n), E.RequestNotOpen);
    await expectRefused(w, await fillIx(w, post.request, n), E.RequestNotOpen, w.lender);
  });

  it("post -> fill -> liquidate after expiry + grace: the pool owner holds it", async () => {
    const w = await pnftWorld();
    const { n, post } = await posted(w);
    const fill = await fillIx(w, post.request, n);
    expectOk(await send(w, fill, w.lender));
    const liquidator = await w.h.wallet();
    // before expiry + grace: refused
    await expectRefused(w, await liquidateIx(w, liquidator, fill.loan, n), E.NotLiquidatable, liquidator);
    w.h.advance(30n * DAY);
    const liq = await liquidateIx(w, liquidator, fill.loan, n);
    // the liquidator naming their own associated token account as the receiver's, or themselves as the pool owner
    const theirs = [...(liq.accounts ?? [])];
    theirs[5] = { address: await ata(liquidator.address, n), role: AccountRole.WRITABLE };
    await expectRefused(w, { ...liq, accounts: theirs }, E.InvalidPda, liquidator);
    const owner = [...(liq.accounts ?? [])];
    owner[18] = { address: liquidator.address, role: AccountRole.READONLY };
    await expectRefused(w, { ...liq, accounts: owner }, E.AccountMismatch, liquidator);
    expect(holding(w, await ata(fill.loan, n))).toEqual({ owner: fill.loan, amount: 1n });
    const out = expectOk(await send(w, liq, liquidator));
    expect(loanOf(w, fill.loan).status).toBe("Liquidated");
    expect(holding(w, liq.dest)).toEqual({ owner: w.lender.address, amount: 1n });
    expect(w.h.exists(await ata(fill.loan, n))).toBe(false);
    console.log(
      `held pNFT liquidate ${out.computeUnits} CU (${await wireSize(w.h, [computeLimit(LIMIT), liq], liquidator)} B)`,
    );
  });

  it("post -> fill -> extend -> refinance to another lender's pool: it moves loan PDA to loan PDA (nftType 4 kept), then ends there", async () => {
    const w = await pnftWorld();
    const { n, post } = await posted(w);
    const fill = await fillIx(w, post.request, n);
    expectOk(await send(w, fill, w.lender));
    w.h.advance(DAY);
    const extend = await moveIx(w, n, fill.loan);
    const extended = expectOk(await send(w, extend));
    expect(loanOf(w, fill.loan)).toMatchObject({ status: "Repaid", closedBy: "Extended" });
    expect(loanOf(w, extend.loan)).toMatchObject({
      status: "Ongoing",
      nftType: "ProgrammableNft",
      pnftHeld: true,
    });
    expect(extend.escrow).toBe(await ata(extend.loan, n));
    expect(holding(w, extend.escrow)).toEqual({ owner: extend.loan, amount: 1n });
    expect([...w.h.data(extend.loan).subarray(385, 388)]).toEqual([n.metadata[1], n.edition[1], 0]);

    const other = await otherLenderPool(w, w.pnftCollection);
    w.h.advance(DAY);
    const refinance = await moveIx(w, n, extend.loan, other);
    const refinanced = expectOk(await send(w, refinance));
    expect(loanOf(w, extend.loan)).toMatchObject({ status: "Repaid", closedBy: "Refinanced" });
    expect(holding(w, refinance.escrow)).toEqual({ owner: refinance.loan, amount: 1n });
    expect(w.h.exists(extend.escrow)).toBe(false);
    const sizes = async (ix: Instruction) =>
      `${await wireSize(w.h, [computeLimit(LIMIT), ix], w.borrower)} B, ` +
      `${await wireSize(w.h, [computeLimit(LIMIT), ix], w.borrower, await protocolTable(w))} B with the protocol table`;
    console.log(
      `held pNFT extend ${extended.computeUnits} CU (${await sizes(extend)}), ` +
        `refinance ${refinanced.computeUnits} CU (${await sizes(refinance)})`,
    );

    w.h.advance(30n * DAY);
    const liquidator = await w.h.wallet();
    const liq = await liquidateIx(w, liquidator, refinance.loan, n, {
      pool: other.pool,
      bank: other.bank,
      owner: other.lender.address,
    });
    expectOk(await send(w, liq, liquidator));
    expect(holding(w, liq.dest)).toEqual({ owner: other.lender.address, amount: 1n });
  });

  it("refuses: the borrower filling their own request, another mint, a wrong token record, a loan account named as another's", async () => {
    const w = await pnftWorld();
    const { n, post } = await posted(w);
    const requestAta = await ata(post.request, n);
    // the borrower as the lender
    await expectRefused(w, await fillIx(w, post.request, n, w.borrower), E.SelfFill);
    // another mint (a pNFT of the same collection) named at 9 and in the block
    const other = await mintPnft(w);
    const otherFill = await fillIx(w, post.request, n);
    const otherMint = [...(otherFill.accounts ?? [])];
    otherMint[9] = { address: other.mint, role: AccountRole.READONLY };
    await expectRefused(w, { ...otherFill, accounts: otherMint }, E.InvalidMint, w.lender);
    const otherBlock = [...(otherFill.accounts ?? [])];
    otherBlock[13] = { address: other.mint, role: AccountRole.READONLY };
    otherBlock[14] = { address: other.metadata[0], role: AccountRole.WRITABLE };
    await expectRefused(w, { ...otherFill, accounts: otherBlock }, E.InvalidMint, w.lender);
    // the block's record swapped for another account's record (the borrower's)
    const fill = await fillIx(w, post.request, n);
    const swapped = [...(fill.accounts ?? [])];
    swapped[16] = { address: n.record[0], role: AccountRole.WRITABLE };
    await expectRefused(w, { ...fill, accounts: swapped }, E.InvalidPda, w.lender);
    // the new loan's account named as the stranger's associated token account
    const stranger = await w.h.wallet();
    const elsewhere = [...(fill.accounts ?? [])];
    elsewhere[8] = { address: await ata(stranger.address, n), role: AccountRole.WRITABLE };
    await expectRefused(w, { ...fill, accounts: elsewhere }, E.InvalidPda, w.lender);
    expect(holding(w, requestAta)).toEqual({ owner: post.request, amount: 1n });
    expect(w.h.exists(fill.loan)).toBe(false);
    // the books are untouched
    expect(bankOf(w).ongoingLoans).toBe(0n);
    expectOk(await send(w, fill, w.lender));
  });

  it("a rule set that would refuse an ending refuses the post: nothing created, nothing moved", async () => {
    // only a wallet may receive an owner's transfer from a program: FillRequest's transfer to the loan PDA would fail
    const noProgramReceivers = await pnftWorld([SYSTEM]);
    // only an account of the lending program may receive: CancelRequest's and Repay's transfer to the borrower would
    const onlyProgram = await pnftWorld(undefined, (program) => ({
      "Transfer:Owner": { type: "ProgramOwnedList", field: "Destination", programs: [program] } as RuleV2,
    }));
    for (const [what, w] of [
      ["a program cannot receive", noProgramReceivers],
      ["a wallet cannot receive", onlyProgram],
    ] as const) {
      const n = await mintPnft(w);
      const post = await postIx(w, n);
      const out = await send(w, post);
      expect(out.ok, what).toBe(false);
      expect(out.logs.join("\n"), what).toMatch(
        /Instruction: Validate[\s\S]*auth9SigNpDKz4sJJ1DfCTuZrZNSAgh9sFD3rboVmgg failed/,
      );
      expect(out.customCode, what).toBeLessThan(6000); // Token Auth Rules' own code
      expect(w.h.exists(post.request), what).toBe(false);
      expect(holding(w, n.token), what).toEqual({ owner: w.borrower.address, amount: 1n });
    }
  });

  it("accounts opened (and lamports sent) for the request PDA and the loan PDA beforehand change nothing", async () => {
    const w = await pnftWorld();
    const n = await mintPnft(w);
    const post = await postIx(w, n);
    const stranger = await w.h.wallet(10_000_000_000n);
    const requestAta = await openAta(w, stranger, post.request, n);
    expectOk(await send(w, post));
    expect(holding(w, requestAta)).toEqual({ owner: post.request, amount: 1n });
    const fill = await fillIx(w, post.request, n);
    const loanAta = await openAta(w, stranger, fill.loan, n);
    expectOk(await send(w, fill, w.lender));
    expect(holding(w, loanAta)).toEqual({ owner: fill.loan, amount: 1n });
    // the request's emptied account (the stranger's rent in it) closed to the lender, as a classic fill's escrow
    expect(w.h.exists(requestAta)).toBe(false);
    w.h.advance(DAY);
    expectOk(await send(w, await repayIx(w, fill.loan, n)));
    expect(holding(w, n.token)).toEqual({ owner: w.borrower.address, amount: 1n });
    expect(w.h.exists(loanAta)).toBe(false);
  });

  it("post -> fill -> instant sell (MarketSell): the market's SellPnftToBid sells it from the loan PDA's account", async () => {
    const market = (await generateKeyPairSigner()).address;
    const w = await pnftWorld((program) => [program, market]);
    await pinMarket(w, market, new Uint8Array(readFileSync(MARKET_SO)));
    const { n, post } = await posted(w);
    const fill = await fillIx(w, post.request, n);
    expectOk(await send(w, fill, w.lender));
    w.h.advance(DAY);
    const bidder = await w.h.wallet();
    const bid = await getPlaceBidInstruction({
      programAddress: market,
      bidder,
      nonce: 1n,
      collection: w.pnftCollection,
      currencyMint: w.currency,
      bidderCurrencyAccount: await fundedTokenAccount(w.h, w.currency, bidder.address, 10_000n * ONE),
      price: 500n * ONE,
    });
    expectOk(await w.h.trySend([bid], bidder));
    const custody = await heldBy(n, fill.loan);
    const swap = await getSellPnftToBidInstruction({
      programAddress: market,
      seller: fill.loan,
      sellerSignsByCpi: true,
      payer: w.borrower,
      bid: bid.bid,
      vault: bid.vault,
      bidder: bidder.address,
      nft: custody,
      proceeds: w.borrowerAta,
      minPrice: 0n,
    });
    const sell = await getMarketSellInstruction({
      programAddress: w.program,
      borrower: w.borrower,
      pool: w.pnftPool,
      bank: w.bank,
      loan: fill.loan,
      borrowerCollateralTokenAccount: n.token,
      borrowerCurrencyTokenAccount: w.borrowerAta,
      swap,
      custody,
    });
    // the loan's account named at 7 but another record at 8: refused, nothing moves
    const wrong = [...(sell.accounts ?? [])];
    wrong[8] = { address: n.record[0], role: AccountRole.WRITABLE };
    await expectRefused(w, { ...sell, accounts: wrong }, E.AccountMismatch);
    const before = tokenBalance(w.h, w.borrowerAta);
    const out = expectOk(await w.h.trySend([computeLimit(1_400_000), sell], w.borrower));
    const sold = loanOf(w, fill.loan);
    expect(sold.status).toBe("Sold");
    expect(holding(w, await ata(bidder.address, n))).toEqual({ owner: bidder.address, amount: 1n });
    // emptied, closed to the payer (the borrower), as every pNFT sale's
    expect(w.h.exists(custody.tokenAccount)).toBe(false);
    expect(tokenBalance(w.h, w.borrowerAta)).toBe(before + 500n * ONE - sold.repaidAmount);
    console.log(
      `held pNFT instant sell ${out.computeUnits} CU (${await wireSize(w.h, [computeLimit(1_400_000), sell], w.borrower)} B, ` +
        `${await wireSize(w.h, [computeLimit(1_400_000), sell], w.borrower, await protocolTable(w))} B with the protocol table)`,
    );
  });

  it("auto-sell (LiquidateSell) of a filled request's loan refuses before expiry + grace, a pool without auto-sell, an unpinned market, another wallet as the borrower, a wrong token record, a stranger's token account, another mint, a bid short of the debt; nothing moves", async () => {
    const s = await pnftSaleWorld();
    const liquidator = await s.h.wallet();
    const price = 500n * ONE;
    const b = await pnftBid(s, price);
    // a loan of the pool without auto-sell
    const plain = await posted(s);
    const plainFill = await fillIx(s, plain.post.request, plain.n);
    expectOk(await send(s, plainFill, s.lender));
    const { n, post } = await posted(s);
    const fill = await fillIx(s, post.request, n, s.lender, { pool: s.autoSellPool, bank: s.bank });
    expectOk(await send(s, fill, s.lender));
    const loanAta = await ata(fill.loan, n);
    const vault = tokenBalance(s.h, s.vault);
    const untouched = async (loan: Address, m: Pnft) => {
      expect(holding(s, await ata(loan, m))).toEqual({ owner: loan, amount: 1n });
      expect(loanOf(s, loan).status).toBe("Ongoing");
      expect(tokenBalance(s.h, s.vault)).toBe(vault);
      expect(tokenBalance(s.h, b.vault)).toBe(price);
      expect(holding(s, await ata(b.bidder, m))?.amount ?? 0n).toBe(0n);
    };
    const refused = async (ix: Instruction, code: number, loan = fill.loan, m = n) => {
      await expectRefused(s, ix, code, liquidator);
      await untouched(loan, m);
    };
    const good = await autoSellIx(s, fill.loan, n, b, liquidator);
    await refused(good, E.NotLiquidatable);

    s.h.advance(30n * DAY);
    await refused(
      await autoSellIx(s, plainFill.loan, plain.n, b, liquidator, s.pnftPool),
      E.AutoSellDisabled,
      plainFill.loan,
      plain.n,
    );
    // the market's code at an address the admin did not pin
    const rogue = (await generateKeyPairSigner()).address;
    s.h.svm.addProgram(rogue, new Uint8Array(readFileSync(MARKET_SO)));
    await refused(
      edited(good, (a) => {
        a[10] = meta(rogue);
      }),
      E.InvalidVenue,
    );
    // account 11 a wallet that is not the loan's borrower
    const stranger = await s.h.wallet();
    await refused(
      edited(good, (a) => {
        a[11] = meta(stranger.address);
      }),
      E.AccountMismatch,
    );
    // account 8 another token record (the borrower's), then the market's seller record too
    await refused(
      edited(good, (a) => {
        a[8] = meta(n.record[0], W);
      }),
      E.AccountMismatch,
    );
    await refused(
      edited(good, (a) => {
        a[8] = meta(n.record[0], W);
        a[17] = meta(n.record[0], W);
      }),
      E.InvalidPda,
    );
    // a stranger's pNFT token account and record as the loan's (and as the market's seller account)
    const strangers = await mintPnft(s, s.pnftCollection, stranger.address);
    await refused(
      edited(good, (a) => {
        a[7] = meta(strangers.token, W);
        a[8] = meta(strangers.record[0], W);
        a[16] = meta(strangers.token, W);
        a[17] = meta(strangers.record[0], W);
      }),
      E.AccountMismatch,
    );
    // the tail naming another mint
    await refused(
      edited(good, (a) => {
        a[24] = meta(strangers.mint);
      }),
      E.InvalidMint,
    );
    // a bid that pays the principal but not the interest owed
    const short = await pnftBid(s, loanOf(s, fill.loan).principal);
    await refused(await autoSellIx(s, fill.loan, n, short, liquidator), E.SaleShort);
    expect(holding(s, loanAta)).toEqual({ owner: fill.loan, amount: 1n });
  });

  it("post -> fill -> expiry + grace -> auto-sell (LiquidateSell) despite donations: the bidder holds it, the vault gets principal and the rest, the loan ends Liquidated (AutoSold), the loan PDA's account closes to the liquidator", async () => {
    const s = await pnftSaleWorld();
    const { n, post } = await posted(s);
    const fill = await fillIx(s, post.request, n, s.lender, { pool: s.autoSellPool, bank: s.bank });
    expectOk(await send(s, fill, s.lender));
    const loanAta = await ata(fill.loan, n);
    s.h.advance(30n * DAY);
    const price = 400n * ONE;
    const b = await pnftBid(s, price);
    const liquidator = await s.h.wallet();
    // donations beforehand: currency into the vault, a currency account of the loan PDA, lamports to its pNFT account
    await mintTo(s.h, s.currency, s.vault, 9n);
    const donated = await fundedTokenAccount(s.h, s.currency, fill.loan, 7n);
    s.h.svm.airdrop(loanAta, lamports(1_000_000n));
    const principal = loanOf(s, fill.loan).principal;
    const bankBefore = bankOf(s);
    const vaultBefore = tokenBalance(s.h, s.vault);
    const ix = await autoSellIx(s, fill.loan, n, b, liquidator);
    const liquidatorBefore = s.h.lamports(liquidator.address);
    const out = expectOk(await send(s, ix, liquidator));
    const inline = await wireSize(s.h, [computeLimit(LIMIT), ix], liquidator);
    const withTable = await wireSize(s.h, [computeLimit(LIMIT), ix], liquidator, await protocolTable(s));
    console.log(
      `held pNFT auto-sell (LiquidateSell + SellPnftToBid): ${out.computeUnits} CU, ${inline} B inline ` +
        `(${withTable} B with the protocol table), ${ix.accounts?.length} accounts`,
    );
    expect(withTable).toBeLessThanOrEqual(1232);
    expect(ix.accounts?.length).toBeLessThanOrEqual(40);

    expect(holding(s, await ata(b.bidder, n))).toEqual({ owner: b.bidder, amount: 1n });
    // the loan PDA's account and its record closed; the pool owner and the borrower receive no NFT
    expect(s.h.exists(loanAta)).toBe(false);
    expect(s.h.exists((await findTokenRecordPda(n.mint, loanAta))[0])).toBe(false);
    expect(holding(s, await ata(s.lender.address, n))?.amount ?? 0n).toBe(0n);
    expect(holding(s, n.token)?.amount ?? 0n).toBe(0n);
    // the liquidator's net cost stays small: the fee and what Token Metadata charges, less the emptied account's
    // rent (with the donated lamports) that closes to them
    const paid = liquidatorBefore - s.h.lamports(liquidator.address);
    console.log(`held pNFT auto-sell: the liquidator's net cost ${paid} lamports`);
    expect(paid).toBeLessThan(10_000_000n);

    const sold = loanOf(s, fill.loan);
    expect(sold).toMatchObject({ status: "Liquidated", closedBy: "AutoSold", repaidAmount: price });
    expect(tokenBalance(s.h, s.vault)).toBe(vaultBefore + price);
    const bank = bankOf(s);
    expect(bank.availableLiquidity).toBe(bankBefore.availableLiquidity + price);
    expect(bank.totalLiquidity).toBe(bankBefore.totalLiquidity + price - principal);
    expect(poolOf(s, s.autoSellPool)).toMatchObject({ currentLoans: 0n, totalLiquidations: 1n });
    expect(tokenBalance(s.h, donated)).toBe(7n);

    // the same sale again: the loan is no longer Ongoing
    const again = await pnftBid(s, price);
    await expectRefused(
      s,
      await autoSellIx(s, fill.loan, n, again, liquidator),
      E.LoanNotOngoing,
      liquidator,
    );
  });
});
