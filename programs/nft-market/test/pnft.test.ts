// Programmable NFTs on the local NFT market, through the real Token Metadata and Token Auth Rules programs (the
// vendored binaries at their mainnet ids): a listing PDA holds a listed pNFT in its associated token account, the
// buyer or the seller gets it back through Token Metadata's Transfer v1, and a collection bid takes a pNFT of its
// verified collection; the rule set the metadata names decides each move. Adversarial cases first.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  getComputeUnitLimitKitInstruction as computeLimit,
  createOrUpdateRuleSetTransactions,
  createProgrammableNftV1,
  getDemoRuleSetOperations,
  getRuleSetAddress,
  toKitInstruction as kit,
  mintProgrammableNftV1,
  readVendoredProgram,
  transferProgrammableNftV1,
  VENDORED_PROGRAMS,
  verifyCollectionV1,
} from "@cistern/localnet";
import {
  type AccountReader,
  decodeMarketListing,
  findAssociatedTokenPda,
  findPnftListingAccounts,
  getBuyPnftInstruction,
  getDelistPnftInstruction,
  getListNftInstruction,
  getListPnftInstruction,
  getPlaceBidInstruction,
  getSellPnftToBidInstruction,
  getSellToBidInstruction,
  NFT_MARKET_ERRORS,
  type ProgrammableCustody,
  readNftCustody,
  TOKEN_AUTH_RULES_PROGRAM_ADDRESS,
  TOKEN_METADATA_PROGRAM_ADDRESS,
} from "@cistern/sdk";
import {
  createFundedSigner,
  createMint,
  createTestSvm,
  createTokenAccount,
  getAccountData,
  getTokenBalance,
  LiteSvmTransactionError,
  mintTo,
  sendWithLiteSvm,
} from "@cistern/sdk/testing";
import { buildSources } from "@cistern/toolchain";
import {
  AccountRole,
  type AccountSignerMeta,
  type Address,
  generateKeyPairSigner,
  getAddressDecoder,
  getProgramDerivedAddress,
  type Instruction,
  type KeyPairSigner,
  lamports,
} from "@solana/kit";
import type { LiteSVM } from "litesvm";
import { beforeEach, describe, expect, it } from "vitest";

const SO = fileURLToPath(new URL("../build/nft-market.so", import.meta.url));
const REPO = fileURLToPath(new URL("../../..", import.meta.url));
const USDC = 1_000_000n;
const ATA_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL" as Address;
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" as Address;
const SYSTEM = "11111111111111111111111111111111" as Address;
const dec = getAddressDecoder();

interface Market {
  svm: LiteSVM;
  programAddress: Address;
  authority: KeyPairSigner;
  currency: Address;
  ruleSet: Address;
  collection: Address;
}

async function failure(run: Promise<unknown>): Promise<number | string> {
  try {
    await run;
    return "success";
  } catch (error) {
    if (!(error instanceof LiteSvmTransactionError)) throw error;
    const line = error.logs.find((l) => /custom program error: 0x/.test(l));
    return line ? Number.parseInt(line.split("0x")[1]!, 16) : error.message;
  }
}

const send = (m: Market, ixs: Instruction[], payer: KeyPairSigner) =>
  sendWithLiteSvm(m.svm, [computeLimit(1_400_000), ...ixs], payer);

/** A rule set named `name` of the authority allowing `allowed` (the demo rule set's operations). */
async function ruleSet(svm: LiteSVM, authority: KeyPairSigner, name: string, allowed: Address[]) {
  for (const tx of createOrUpdateRuleSetTransactions({
    owner: authority.address,
    name,
    operations: getDemoRuleSetOperations(allowed),
  }))
    await sendWithLiteSvm(svm, [computeLimit(1_400_000), ...tx.map((ix) => kit(ix, [authority]))], authority);
  return getRuleSetAddress(authority.address, name) as Address;
}

/** Mints a pNFT (or, with `collection` null, a sized collection NFT to the authority) governed by `rules`. */
async function mint(
  m: Pick<Market, "svm" | "authority">,
  owner: Address,
  collection: Address | null,
  rules: Address,
): Promise<Address> {
  const nft = await generateKeyPairSigner();
  const a = m.authority;
  const ixs = [
    kit(
      createProgrammableNftV1({
        mint: nft.address,
        authority: a.address,
        ruleSet: rules,
        data: {
          name: collection ? "Heron" : "Herons",
          symbol: "HERON",
          uri: "https://example.invalid/h.json",
          sellerFeeBasisPoints: 0,
          creators: null,
          collection,
          collectionSize: collection ? null : 0n,
        },
      }),
      [a, nft],
    ),
    kit(mintProgrammableNftV1({ mint: nft.address, authority: a.address, owner, ruleSet: rules }), [a]),
  ];
  if (collection)
    ixs.push(
      kit(verifyCollectionV1({ mint: nft.address, collectionMint: collection, authority: a.address }), [a]),
    );
  await sendWithLiteSvm(m.svm, [computeLimit(1_400_000), ...ixs], a);
  return nft.address;
}

async function createMarket(extraAllowed: Address[] = []): Promise<Market> {
  const svm = createTestSvm();
  const programAddress = (await generateKeyPairSigner()).address;
  svm.addProgram(programAddress, new Uint8Array(readFileSync(SO)));
  for (const p of VENDORED_PROGRAMS)
    if (p.programId === TOKEN_METADATA_PROGRAM_ADDRESS || p.programId === TOKEN_AUTH_RULES_PROGRAM_ADDRESS)
      svm.addProgram(p.programId as Address, readVendoredProgram(p));
  const authority = await createFundedSigner(svm, 1000n);
  const currency = await createMint(svm, authority, 6);
  const rules = await ruleSet(svm, authority, "herons", [programAddress, ...extraAllowed]);
  const collection = await mint({ svm, authority }, authority.address, null, rules);
  return { svm, programAddress, authority, currency, ruleSet: rules, collection };
}

async function wallet(m: Market, usdc = 0n) {
  const signer = await createFundedSigner(m.svm);
  const currencyAccount = await createTokenAccount(m.svm, m.authority, m.currency, signer.address);
  if (usdc > 0n) await mintTo(m.svm, m.authority, m.currency, currencyAccount, usdc * USDC);
  return { signer, currencyAccount };
}

/** The chain read the SDK's builders take, over LiteSVM. */
const reader =
  (m: Market): AccountReader =>
  async (addresses) =>
    addresses.map((a) => {
      const account = m.svm.getAccount(a);
      return account.exists
        ? { owner: String(account.programAddress), data: new Uint8Array(account.data) }
        : null;
    });

/** A pNFT's accounts as `owner`'s associated token account holds it (read from the chain). */
async function custody(m: Market, mintAddress: Address, owner: Address): Promise<ProgrammableCustody> {
  const tokenAccount = await findAssociatedTokenPda(owner, mintAddress);
  const c = await readNftCustody(reader(m), { mint: mintAddress, tokenAccount });
  if (c.standard !== "ProgrammableNft") throw new Error(`${mintAddress} is not a pNFT`);
  return c;
}

/** Who holds the pNFT: the owner of the token account holding it (null: none of those given). */
function token(m: Market, a: Address) {
  const data = getAccountData(m.svm, a);
  if (!data) return null;
  return {
    owner: dec.decode(data.subarray(32, 64)),
    amount: new DataView(data.buffer, data.byteOffset).getBigUint64(64, true),
  };
}
async function holds(m: Market, owner: Address, mintAddress: Address) {
  return token(m, await findAssociatedTokenPda(owner, mintAddress))?.amount === 1n;
}

function withAccount(ix: Instruction, index: number, address: Address): Instruction {
  const accounts = [...(ix.accounts ?? [])];
  accounts[index] = { ...accounts[index]!, address };
  return { ...ix, accounts };
}

const list = async (m: Market, seller: KeyPairSigner, nft: Address, price: bigint) =>
  getListPnftInstruction({
    programAddress: m.programAddress,
    seller,
    nft: await custody(m, nft, seller.address),
    currencyMint: m.currency,
    price,
  });

describe("local NFT market: pNFT listings", () => {
  let m: Market;
  beforeEach(async () => {
    m = await createMarket();
  });

  it("refuses another pNFT's metadata or token record, a mint that is not the token's, a stranger, a classic List", async () => {
    const seller = await wallet(m);
    const nft = await mint(m, seller.signer.address, m.collection, m.ruleSet);
    const other = await mint(m, seller.signer.address, m.collection, m.ruleSet);
    const ix = await list(m, seller.signer, nft, USDC);
    const otherIx = await list(m, seller.signer, other, USDC);
    const at = (i: number) => otherIx.accounts![i]!.address;
    // metadata (17: 7 + 1) and master edition (9) of another pNFT
    expect(await failure(send(m, [withAccount(ix, 8, at(8))], seller.signer))).toBe(
      NFT_MARKET_ERRORS.InvalidMetadata,
    );
    expect(await failure(send(m, [withAccount(ix, 9, at(9))], seller.signer))).toBe(
      NFT_MARKET_ERRORS.InvalidMetadata,
    );
    // the other pNFT's token record for this token account
    expect(await failure(send(m, [withAccount(ix, 3, at(3))], seller.signer))).toBe(
      NFT_MARKET_ERRORS.InvalidMetadata,
    );
    // the other pNFT's token account (its own record) with this mint
    const swapped = withAccount(withAccount(ix, 2, at(2)), 3, at(3));
    expect(await failure(send(m, [swapped], seller.signer))).toBe(NFT_MARKET_ERRORS.InvalidTokenAccount);
    // another rule set than the metadata's
    const otherRules = await ruleSet(m.svm, m.authority, "other", [m.programAddress]);
    expect(await failure(send(m, [withAccount(ix, 12, otherRules)], seller.signer))).toBe(
      NFT_MARKET_ERRORS.InvalidMetadata,
    );
    // another program passed as Token Metadata
    expect(await failure(send(m, [withAccount(ix, 10, m.programAddress)], seller.signer))).toBe(
      NFT_MARKET_ERRORS.InvalidTokenMetadataProgram,
    );
    // a stranger signs for the seller's token account
    const stranger = await wallet(m);
    const theirs = await getListPnftInstruction({
      programAddress: m.programAddress,
      seller: stranger.signer,
      nft: await custody(m, nft, seller.signer.address),
      currencyMint: m.currency,
      price: USDC,
    });
    expect(await failure(send(m, [theirs], stranger.signer))).toBe(NFT_MARKET_ERRORS.InvalidTokenAccount);
    // the classic List on a pNFT (its token account is frozen by Token Metadata)
    const classic = await getListNftInstruction({
      programAddress: m.programAddress,
      seller: seller.signer,
      nftMint: nft,
      sellerNftAccount: await findAssociatedTokenPda(seller.signer.address, nft),
      currencyMint: m.currency,
      price: USDC,
    });
    expect(await failure(send(m, [classic], seller.signer))).not.toBe("success");
    expect(await holds(m, seller.signer.address, nft)).toBe(true);
    expect(getAccountData(m.svm, ix.listing)).toBeNull();
  });

  it("a rule set that does not allow the market refuses the listing; nothing moves", async () => {
    const seller = await wallet(m);
    const strict = await ruleSet(m.svm, m.authority, "strict", [m.authority.address]);
    const nft = await mint(m, seller.signer.address, m.collection, strict);
    const ix = await list(m, seller.signer, nft, USDC);
    expect(await failure(send(m, [ix], seller.signer))).not.toBe("success");
    expect(await holds(m, seller.signer.address, nft)).toBe(true);
    expect(getAccountData(m.svm, ix.listing)).toBeNull();
  });

  it("a listing holds the pNFT; a buyer paying less is refused, then pays the price and receives it; no second sale", async () => {
    const seller = await wallet(m);
    const nft = await mint(m, seller.signer.address, m.collection, m.ruleSet);
    const ix = await list(m, seller.signer, nft, 250n * USDC);
    const listed = await send(m, [ix], seller.signer);
    console.log(`ListPnft: ${listed.computeUnits} CU (with a 1.4M limit instruction)`);
    expect(await holds(m, ix.listing, nft)).toBe(true);
    expect(decodeMarketListing(getAccountData(m.svm, ix.listing)!)).toMatchObject({
      standard: "programmable",
      seller: seller.signer.address,
      nftMint: nft,
      escrow: ix.escrow,
      price: 250n * USDC,
    });
    const buyer = await wallet(m, 300n);
    const nftAccounts = await custody(m, nft, ix.listing);
    const buy = (maxPrice: bigint, newOwner = buyer.signer.address) =>
      getBuyPnftInstruction({
        programAddress: m.programAddress,
        buyer: buyer.signer,
        payFrom: buyer.currencyAccount,
        sellerCurrencyAccount: seller.currencyAccount,
        seller: seller.signer.address,
        newOwner,
        nft: nftAccounts,
        maxPrice,
      });
    expect(await failure(send(m, [await buy(249n * USDC)], buyer.signer))).toBe(NFT_MARKET_ERRORS.PriceMoved);
    // the seller's proceeds account replaced by the buyer's own
    const selfPay = withAccount(await buy(250n * USDC), 3, buyer.currencyAccount);
    expect(await failure(send(m, [selfPay], buyer.signer))).toBe(NFT_MARKET_ERRORS.InvalidTokenAccount);
    // another token account than the listing's
    const elsewhere = withAccount(await buy(250n * USDC), 6, buyer.currencyAccount);
    expect(await failure(send(m, [elsewhere], buyer.signer))).toBe(NFT_MARKET_ERRORS.AccountMismatch);
    expect(getTokenBalance(m.svm, buyer.currencyAccount)).toBe(300n * USDC);
    // lamports sent to the listing and its token account change nothing (the seller gets them with the rents)
    for (const a of [ix.listing, ix.escrow]) {
      const account = m.svm.getAccount(a);
      if (!account.exists) throw new Error("missing");
      m.svm.setAccount({ ...account, address: a, lamports: lamports(account.lamports + 1_000_000n) });
    }
    const sellerLamports = m.svm.getBalance(seller.signer.address) ?? 0n;
    const rents = (m.svm.getBalance(ix.listing) ?? 0n) + (m.svm.getBalance(ix.escrow) ?? 0n);
    const bought = await send(m, [await buy(250n * USDC)], buyer.signer);
    expect(m.svm.getBalance(seller.signer.address)).toBe(sellerLamports + rents);
    console.log(`BuyPnft: ${bought.computeUnits} CU`);
    expect(await holds(m, buyer.signer.address, nft)).toBe(true);
    expect(await holds(m, ix.listing, nft)).toBe(false);
    expect(getTokenBalance(m.svm, buyer.currencyAccount)).toBe(50n * USDC);
    expect(getTokenBalance(m.svm, seller.currencyAccount)).toBe(250n * USDC);
    expect(getAccountData(m.svm, ix.listing)).toBeNull();
    // the listing's token account and its token record are closed too
    expect(getAccountData(m.svm, ix.escrow)).toBeNull();
    expect(getAccountData(m.svm, nftAccounts.tokenRecord)).toBeNull();
    expect(await failure(send(m, [await buy(250n * USDC)], buyer.signer))).toBe(
      NFT_MARKET_ERRORS.InvalidOwner,
    );
    expect(getTokenBalance(m.svm, buyer.currencyAccount)).toBe(50n * USDC);
    // the buyer lists it again
    const again = await list(m, buyer.signer, nft, 10n * USDC);
    await send(m, [again], buyer.signer);
    expect(await holds(m, again.listing, nft)).toBe(true);
  });

  it("only the seller delists; lamports and an account made in advance at the listing's addresses change nothing", async () => {
    const seller = await wallet(m);
    const nft = await mint(m, seller.signer.address, m.collection, m.ruleSet);
    const held = await findPnftListingAccounts(m.programAddress, nft);
    // a stranger funds the listing PDA and creates the listing's associated token account before the listing
    const stranger = await wallet(m);
    await sendWithLiteSvm(
      m.svm,
      [
        {
          programAddress: ATA_PROGRAM,
          accounts: [
            {
              address: stranger.signer.address,
              role: AccountRole.WRITABLE_SIGNER,
              signer: stranger.signer,
            } as AccountSignerMeta,
            { address: held.token, role: AccountRole.WRITABLE },
            { address: held.listing, role: AccountRole.READONLY },
            { address: nft, role: AccountRole.READONLY },
            { address: SYSTEM, role: AccountRole.READONLY },
            { address: TOKEN_PROGRAM, role: AccountRole.READONLY },
          ],
          data: Uint8Array.of(1), // CreateIdempotent
        },
      ],
      stranger.signer,
    );
    m.svm.setAccount({
      address: held.listing,
      lamports: lamports(5_000_000n),
      programAddress: SYSTEM,
      executable: false,
      data: new Uint8Array(0),
      space: 0n,
    });
    const ix = await list(m, seller.signer, nft, 10n * USDC);
    await send(m, [ix], seller.signer);
    expect(await holds(m, held.listing, nft)).toBe(true);
    const nftAccounts = await custody(m, nft, held.listing);
    const delist = (who: KeyPairSigner) =>
      getDelistPnftInstruction({ programAddress: m.programAddress, seller: who, nft: nftAccounts });
    expect(await failure(send(m, [await delist(stranger.signer)], stranger.signer))).toBe(
      NFT_MARKET_ERRORS.Unauthorized,
    );
    // lamports sent to the listing and its token account while listed
    for (const a of [held.listing, held.token]) {
      const account = m.svm.getAccount(a);
      if (!account.exists) throw new Error("missing");
      m.svm.setAccount({ ...account, address: a, lamports: lamports(account.lamports + 1_000_000n) });
    }
    const out = await send(m, [await delist(seller.signer)], seller.signer);
    console.log(`DelistPnft: ${out.computeUnits} CU`);
    expect(await holds(m, seller.signer.address, nft)).toBe(true);
    expect(getAccountData(m.svm, held.listing)).toBeNull();
  });
});

describe("local NFT market: pNFTs sold into a collection bid", () => {
  let m: Market;
  let standIn: Address;
  beforeEach(async () => {
    standIn = (await generateKeyPairSigner()).address;
    m = await createMarket([standIn]);
  });

  async function bidOn(price: bigint, collection = m.collection) {
    const bidder = await wallet(m, 1000n);
    const ix = await getPlaceBidInstruction({
      programAddress: m.programAddress,
      bidder: bidder.signer,
      nonce: 1n,
      collection,
      currencyMint: m.currency,
      bidderCurrencyAccount: bidder.currencyAccount,
      price,
    });
    await send(m, [ix], bidder.signer);
    return { bidder, bid: ix.bid, vault: ix.vault };
  }

  async function sell(
    b: Awaited<ReturnType<typeof bidOn>>,
    seller: KeyPairSigner,
    proceeds: Address,
    nft: Address,
    minPrice: bigint,
    holder = seller.address,
  ) {
    return getSellPnftToBidInstruction({
      programAddress: m.programAddress,
      seller,
      bid: b.bid,
      vault: b.vault,
      bidder: b.bidder.signer.address,
      nft: await custody(m, nft, holder),
      proceeds,
      minPrice,
    });
  }

  it("refuses a pNFT outside the bid's collection, a stranger, a price below the minimum, the classic SellToBid", async () => {
    const b = await bidOn(100n * USDC);
    const seller = await wallet(m);
    const otherCollection = await mint(m, m.authority.address, null, m.ruleSet);
    const outsider = await mint(m, seller.signer.address, otherCollection, m.ruleSet);
    const unverified = await mint(m, seller.signer.address, null, m.ruleSet);
    for (const nft of [outsider, unverified])
      expect(
        await failure(
          send(m, [await sell(b, seller.signer, seller.currencyAccount, nft, 0n)], seller.signer),
        ),
      ).toBe(NFT_MARKET_ERRORS.NotInCollection);
    const nft = await mint(m, seller.signer.address, m.collection, m.ruleSet);
    const stranger = await wallet(m);
    const theirs = await sell(b, stranger.signer, stranger.currencyAccount, nft, 0n, seller.signer.address);
    expect(await failure(send(m, [theirs], stranger.signer))).toBe(NFT_MARKET_ERRORS.InvalidTokenAccount);
    expect(
      await failure(
        send(m, [await sell(b, seller.signer, seller.currencyAccount, nft, 101n * USDC)], seller.signer),
      ),
    ).toBe(NFT_MARKET_ERRORS.PriceMoved);
    // the bidder's token account replaced by the seller's currency account
    const redirected = withAccount(
      await sell(b, seller.signer, seller.currencyAccount, nft, 0n),
      8,
      seller.currencyAccount,
    );
    expect(await failure(send(m, [redirected], seller.signer))).toBe(NFT_MARKET_ERRORS.InvalidPda);
    const classic = await getSellToBidInstruction({
      programAddress: m.programAddress,
      seller: seller.signer,
      bid: b.bid,
      vault: b.vault,
      bidder: b.bidder.signer.address,
      nftMint: nft,
      nftSource: await findAssociatedTokenPda(seller.signer.address, nft),
      bidderNftAccount: await findAssociatedTokenPda(b.bidder.signer.address, nft),
      proceeds: seller.currencyAccount,
      minPrice: 0n,
    });
    expect(await failure(send(m, [classic], seller.signer))).not.toBe("success");
    expect(await holds(m, seller.signer.address, nft)).toBe(true);
    expect(getTokenBalance(m.svm, b.vault)).toBe(100n * USDC);
  });

  it("a pNFT of the collection fills the bid: the bidder holds it, the seller is paid, the bid closes; no second fill", async () => {
    const b = await bidOn(100n * USDC);
    const seller = await wallet(m);
    const nft = await mint(m, seller.signer.address, m.collection, m.ruleSet);
    // currency sent to the vault by anyone goes to the seller with the price
    await mintTo(m.svm, m.authority, m.currency, b.vault, 1n);
    const ix = await sell(b, seller.signer, seller.currencyAccount, nft, 100n * USDC);
    const out = await send(m, [ix], seller.signer);
    console.log(`SellPnftToBid: ${out.computeUnits} CU`);
    expect(await holds(m, b.bidder.signer.address, nft)).toBe(true);
    expect(getTokenBalance(m.svm, seller.currencyAccount)).toBe(100n * USDC + 1n);
    expect(getAccountData(m.svm, b.bid)).toBeNull();
    expect(getAccountData(m.svm, b.vault)).toBeNull();
    expect(await failure(send(m, [ix], seller.signer))).toBe(NFT_MARKET_ERRORS.InvalidOwner);
  });

  it("a program's PDA that holds a pNFT in its own associated token account sells it into the bid, signing by CPI", async () => {
    // the stand-in program: forwards an instruction to the market with its PDA ["seller"] signing (a loan PDA's role)
    const so = await buildSources({
      cwd: REPO,
      sources: ["programs/nft-market/test/fixtures/pda-seller.c", "programs/toolchain/c/libsol.c"],
      includeDirs: ["programs/toolchain/c"],
    });
    m.svm.addProgram(standIn, so.so);
    const [pda, bump] = await getProgramDerivedAddress({ programAddress: standIn, seeds: ["seller"] });
    // like a loan PDA: an account of its program with data (the rule set allows the program's accounts)
    m.svm.setAccount({
      address: pda,
      lamports: lamports(10_000_000n),
      programAddress: standIn,
      executable: false,
      data: new Uint8Array(64).fill(7),
      space: 64n,
    });
    const b = await bidOn(100n * USDC);
    const liquidator = await wallet(m);
    const nft = await mint(m, liquidator.signer.address, m.collection, m.ruleSet);
    await send(
      m,
      [
        kit(
          transferProgrammableNftV1({
            mint: nft,
            owner: liquidator.signer.address,
            destinationOwner: pda,
            ruleSet: m.ruleSet,
          }),
          [liquidator.signer],
        ),
      ],
      liquidator.signer,
    );
    expect(await holds(m, pda, nft)).toBe(true);
    const inner = await getSellPnftToBidInstruction({
      programAddress: m.programAddress,
      seller: pda,
      sellerSignsByCpi: true,
      payer: liquidator.signer,
      bid: b.bid,
      vault: b.vault,
      bidder: b.bidder.signer.address,
      nft: await custody(m, nft, pda),
      proceeds: liquidator.currencyAccount,
      minPrice: 100n * USDC,
    });
    const data = new Uint8Array(1 + inner.data!.length);
    data[0] = bump;
    data.set(inner.data!, 1);
    const viaProgram: Instruction = {
      programAddress: standIn,
      accounts: [{ address: m.programAddress, role: AccountRole.READONLY }, ...(inner.accounts ?? [])],
      data,
    };
    // without the PDA's signature the market refuses
    expect(await failure(send(m, [{ ...inner }], liquidator.signer))).toBe(NFT_MARKET_ERRORS.MissingSigner);
    const out = await send(m, [viaProgram], liquidator.signer);
    console.log(`SellPnftToBid by a PDA through a program: ${out.computeUnits} CU`);
    expect(await holds(m, b.bidder.signer.address, nft)).toBe(true);
    expect(getTokenBalance(m.svm, liquidator.currencyAccount)).toBe(100n * USDC);
    expect(getAccountData(m.svm, b.bid)).toBeNull();
  });
});
