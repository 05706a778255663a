// Programmable NFTs (pNFT) on the real Token Metadata and Token Auth Rules programs for the lending program's tests
// and the compute-unit bench: a world with a rule set, a sized pNFT collection and a pool listing it; pNFTs minted
// into it; the TakeLoan, Repay, Liquidate, Extend and Refinance instructions of a pNFT loan (custody.h's pNFT block).
import {
  createOrUpdateRuleSetTransactions,
  createProgrammableNftV1,
  getAssociatedTokenAddress,
  getDemoRuleSetOperations,
  getRuleSetAddress,
  getTokenRecordAddress,
  mintProgrammableNftV1,
  type RuleV2,
  readVendoredProgram,
  VENDORED_PROGRAMS,
  verifyCollectionV1,
} from "@cistern/localnet";
import {
  AccountRole,
  type AccountSignerMeta,
  type Address,
  address,
  generateKeyPairSigner,
  getAddressEncoder,
  getProgramDerivedAddress,
  type KeyPairSigner,
} from "@solana/kit";
import { computeLimit, expectOk, kit } from "./kit.ts";
import {
  buildWorld,
  createPool,
  liquidateIx,
  moveLoanIx,
  nftLoanIxFor,
  poolParams,
  repayIx,
  type World,
} from "./world.ts";

export const TM = address("metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s");
export const AUTH_RULES = address("auth9SigNpDKz4sJJ1DfCTuZrZNSAgh9sFD3rboVmgg");
export const SYSVAR_INSTRUCTIONS = address("Sysvar1nstructions1111111111111111111111111");
export const SYSTEM = address("11111111111111111111111111111111");
const ATA_PROGRAM = address("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL");
const enc = getAddressEncoder();

async function pda(seeds: (string | Address)[]): Promise<[Address, number]> {
  const [a, bump] = await getProgramDerivedAddress({
    programAddress: TM,
    seeds: seeds.map((s) => (s.length >= 32 && !s.includes("_") ? enc.encode(s as Address) : s)),
  });
  return [a, bump];
}

export interface Pnft {
  mint: Address;
  collection: Address;
  ruleSet: Address;
  token: Address;
  metadata: [Address, number];
  edition: [Address, number];
  record: [Address, number];
}

export interface PnftWorld extends World {
  authority: KeyPairSigner;
  ruleSet: Address;
  pnftCollection: Address;
  pnftPool: Address;
}

let poolSeed = 100n;

/** Loads Token Metadata and Token Auth Rules, creates a rule set allowing `allowed` (the lending program by
 * default; a function of the lending program's address), a sized pNFT collection and an nft-pool listing it. */
export async function pnftWorld(
  allowed?: Address[] | ((program: Address) => Address[]),
  rules: (program: Address) => Record<string, RuleV2> = () => ({}),
): Promise<PnftWorld> {
  const w = await buildWorld();
  for (const p of VENDORED_PROGRAMS.slice(0, 2))
    w.h.svm.addProgram(address(p.programId), readVendoredProgram(p));
  const authority = await w.h.wallet(100_000_000_000n);
  const name = "storm-petrels";
  for (const tx of createOrUpdateRuleSetTransactions({
    owner: authority.address,
    name,
    operations: {
      ...getDemoRuleSetOperations(
        typeof allowed === "function" ? allowed(w.program) : (allowed ?? [w.program]),
      ),
      ...rules(w.program),
    },
  }))
    expectOk(await w.h.trySend([computeLimit(1_400_000), ...tx.map((ix) => kit(ix, [authority]))]));
  const ruleSet = address(getRuleSetAddress(authority.address, name));
  const collection = await createPnftCollection(w, authority, ruleSet, "Storm Petrels");
  const pnftPool = await createPool(
    w.h,
    w.lender,
    w.currency,
    "nft-pool",
    poolSeed++,
    poolParams(collection),
  );
  return { ...w, authority, ruleSet, pnftCollection: collection, pnftPool };
}

/** A sized pNFT collection `name` under `ruleSet`, its authority `authority` (who verifies its members). */
export async function createPnftCollection(
  w: World,
  authority: KeyPairSigner,
  ruleSet: Address,
  name: string,
): Promise<Address> {
  const collection = await generateKeyPairSigner();
  expectOk(
    await w.h.trySend(
      [
        computeLimit(1_400_000),
        kit(
          createProgrammableNftV1({
            mint: collection.address,
            authority: authority.address,
            ruleSet,
            data: {
              name,
              symbol: "PETREL",
              uri: "https://example.invalid/c.json",
              sellerFeeBasisPoints: 500,
              creators: [{ address: authority.address, verified: true, share: 100 }],
              collection: null,
              collectionSize: 0n,
            },
          }),
          [authority, collection],
        ),
        kit(
          mintProgrammableNftV1({
            mint: collection.address,
            authority: authority.address,
            owner: authority.address,
            ruleSet,
          }),
          [authority],
        ),
      ],
      authority,
    ),
  );
  return collection.address;
}

/** A pNFT of `collection` (verified unless `verified` is false) held by the borrower. */
export async function mintPnft(
  w: PnftWorld,
  collection = w.pnftCollection,
  owner = w.borrower.address,
  verified = true,
): Promise<Pnft> {
  const mint = await generateKeyPairSigner();
  const a = w.authority;
  expectOk(
    await w.h.trySend(
      [
        computeLimit(1_400_000),
        kit(
          createProgrammableNftV1({
            mint: mint.address,
            authority: a.address,
            ruleSet: w.ruleSet,
            data: {
              name: "Petrel",
              symbol: "PETREL",
              uri: "https://example.invalid/p.json",
              sellerFeeBasisPoints: 500,
              creators: [{ address: a.address, verified: true, share: 100 }],
              collection,
              collectionSize: null,
            },
          }),
          [a, mint],
        ),
        kit(mintProgrammableNftV1({ mint: mint.address, authority: a.address, owner, ruleSet: w.ruleSet }), [
          a,
        ]),
        ...(verified
          ? [
              kit(
                verifyCollectionV1({ mint: mint.address, collectionMint: collection, authority: a.address }),
                [a],
              ),
            ]
          : []),
      ],
      a,
    ),
  );
  const token = address(getAssociatedTokenAddress(owner, mint.address));
  return {
    mint: mint.address,
    collection,
    ruleSet: w.ruleSet,
    token,
    metadata: await pda(["metadata", TM, mint.address]),
    edition: await pda(["metadata", TM, mint.address, "edition"]),
    record: await pda(["metadata", TM, mint.address, "token_record", token]),
  };
}

export const meta = (a: Address, role = AccountRole.READONLY) => ({ address: a, role });
export const signs = (
  who: KeyPairSigner,
  role: AccountRole.READONLY_SIGNER | AccountRole.WRITABLE_SIGNER,
): AccountSignerMeta => ({
  address: who.address,
  role,
  signer: who,
});
export const W = AccountRole.WRITABLE;

/** The pNFT block (custody.h): mint, metadata, edition, token record, sysvar instructions, Token Metadata, Token
 * Auth Rules, rule set, system program. */
export function pnftBlock(n: Pnft) {
  return [
    meta(n.mint),
    meta(n.metadata[0], W),
    meta(n.edition[0]),
    meta(n.record[0], W),
    meta(SYSVAR_INSTRUCTIONS),
    meta(TM),
    meta(AUTH_RULES),
    meta(n.ruleSet),
    meta(SYSTEM),
  ];
}

export async function takePnftIx(w: PnftWorld, n: Pnft, pool = w.pnftPool) {
  const ix = await nftLoanIxFor(w, { mint: n.mint, account: n.token, collection: n.collection, pool });
  const accounts = [...(ix.accounts ?? [])];
  accounts[7] = meta(n.token, W); // the custody: the borrower's own token account
  accounts.splice(14, 0, ...pnftBlock(n), meta(w.lender.address)); // 23: the pool owner, Liquidate's receiver
  const data = new Uint8Array(ix.data ?? []);
  data[2] = 0;
  data[121] = 1; // ProgrammableNft
  data[122] = n.edition[1];
  data[123] = n.record[1];
  return { ...ix, accounts, data };
}

/** Repay of a pNFT loan: 6 the borrower's token account, then the pNFT block. */
export async function repayPnftIx(w: PnftWorld, loan: Address, n: Pnft) {
  const repay = await repayIx(w, loan, w.pnftPool, n.token);
  const accounts = [...(repay.accounts ?? [])];
  accounts[6] = meta(n.token, W);
  accounts.push(...pnftBlock(n));
  return { ...repay, accounts };
}

/** Liquidate of a pNFT loan: 4 the borrower's token account, 5 the pool owner's associated token account, the pNFT
 * block, then the borrower, the pool owner, its token record, the ATA program, the loan's ATA and its record. */
export async function liquidatePnftIx(
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
  const dest = address(getAssociatedTokenAddress(pool.owner, n.mint));
  const destRecord = address(getTokenRecordAddress(n.mint, dest));
  const liq = await liquidateIx(w, liquidator, loan, dest, pool.pool);
  const accounts = [...(liq.accounts ?? [])];
  accounts[2] = meta(pool.bank, W);
  accounts[4] = meta(n.token, W);
  accounts[5] = meta(dest, W);
  const via = address(getAssociatedTokenAddress(loan, n.mint));
  const viaRecord = address(getTokenRecordAddress(n.mint, via));
  accounts.push(
    ...pnftBlock(n),
    meta(w.borrower.address),
    meta(pool.owner),
    meta(destRecord, W),
    meta(ATA_PROGRAM),
    meta(via, W),
    meta(viaRecord, W),
  );
  return { ...liq, accounts, dest, destRecord };
}

/** Extend (same pool) or, given a target, Refinance of a pNFT loan: 7 and 9 the borrower's token account, then
 * (after the optional whitelist) the pNFT block and the new pool owner's wallet. */
export async function movePnftIx(
  w: PnftWorld,
  n: Pnft,
  oldLoan: Address,
  target?: { pool: Address; bank: Address; lender: KeyPairSigner },
) {
  const ix = await moveLoanIx(w, {
    mint: n.mint,
    collection: n.collection,
    oldLoan,
    oldPool: w.pnftPool,
    target,
  });
  const accounts = [...(ix.accounts ?? [])];
  accounts[7] = meta(n.token, W);
  accounts[9] = meta(n.token, W);
  accounts.push(...pnftBlock(n), meta((target?.lender ?? w.lender).address));
  return { ...ix, accounts };
}
