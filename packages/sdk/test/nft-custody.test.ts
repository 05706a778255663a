// The SDK's custody accounts per standard (src/custody/nft-custody.ts) read from the chain and used by the
// TakeLoan / Repay / Liquidate builders, against the lending program and the real Token Metadata and Token Auth
// Rules binaries (loaded at their mainnet ids in LiteSVM).
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
  VENDORED_PROGRAMS,
  verifyCollectionV1,
} from "@cistern/localnet";
import {
  AccountRole,
  type Address,
  generateKeyPairSigner,
  getAddressDecoder,
  getAddressEncoder,
  type KeyPairSigner,
} from "@solana/kit";
import { describe, expect, it } from "vitest";
import {
  type AccountReader,
  findAssociatedTokenPda,
  findTokenRecordPda,
  getLiquidateInstruction,
  getRepayInstruction,
  getTakeLoanInstruction,
  MPL_CORE_PROGRAM_ADDRESS,
  type NftCustody,
  readNftCustody,
  SYSVAR_INSTRUCTIONS_ADDRESS,
  TOKEN_AUTH_RULES_PROGRAM_ADDRESS,
  TOKEN_METADATA_PROGRAM_ADDRESS,
} from "../src/index.ts";
import {
  attest,
  createFundedSigner,
  createLendingWorld,
  createPool,
  createWallet,
  getAccountData,
  getNow,
  type LendingWorld,
  mintNft,
  mintTo,
  readLoan,
  sendWithLiteSvm,
  setUnixTime,
  tokenAccountOf,
  type Wallet,
  type WorldPool,
} from "../src/testing/index.ts";

const LENDING_SO = fileURLToPath(new URL("../../../programs/lending/build/lending.so", import.meta.url));
const dec = getAddressDecoder();

/** The chain read the builders take, over LiteSVM. */
const reader =
  (w: LendingWorld): AccountReader =>
  async (addresses) =>
    addresses.map((a) => {
      const account = w.svm.getAccount(a);
      return account.exists
        ? { owner: String(account.programAddress), data: new Uint8Array(account.data) }
        : null;
    });

/** Token record: state (0 Unlocked, 1 Locked) and delegate. */
function tokenRecord(w: LendingWorld, a: Address) {
  const data = getAccountData(w.svm, a);
  if (!data) return null;
  let at = 3;
  at += data[at] === 1 ? 9 : 1;
  return { state: data[2], delegate: data[at] === 1 ? dec.decode(data.subarray(at + 1, at + 33)) : null };
}

function tokenAccount(w: LendingWorld, a: Address) {
  const data = getAccountData(w.svm, a);
  if (!data) return null;
  return {
    owner: dec.decode(data.subarray(32, 64)),
    amount: new DataView(data.buffer, data.byteOffset).getBigUint64(64, true),
    frozen: data[108] === 2,
  };
}

interface PnftWorld {
  w: LendingWorld;
  authority: KeyPairSigner;
  ruleSet: Address;
  collection: Address;
  pool: WorldPool;
  borrower: Wallet;
}

async function pnftWorld(): Promise<PnftWorld> {
  const w = await createLendingWorld({ soPath: LENDING_SO, depositBaseUnits: 1_000_000_000n });
  for (const p of VENDORED_PROGRAMS)
    if (p.programId === TOKEN_METADATA_PROGRAM_ADDRESS || p.programId === TOKEN_AUTH_RULES_PROGRAM_ADDRESS)
      w.svm.addProgram(p.programId as Address, readVendoredProgram(p));
  const authority = await createFundedSigner(w.svm, 100n);
  const name = "sdk-custody";
  for (const tx of createOrUpdateRuleSetTransactions({
    owner: authority.address,
    name,
    operations: getDemoRuleSetOperations([w.programAddress]),
  }))
    await sendWithLiteSvm(
      w.svm,
      [computeLimit(1_400_000), ...tx.map((ix) => kit(ix, [authority]))],
      authority,
    );
  const ruleSet = getRuleSetAddress(authority.address, name) as Address;
  const collection = await generateKeyPairSigner();
  await sendWithLiteSvm(
    w.svm,
    [
      computeLimit(1_400_000),
      kit(
        createProgrammableNftV1({
          mint: collection.address,
          authority: authority.address,
          ruleSet,
          data: {
            name: "Petrels",
            symbol: "PETL",
            uri: "https://example.invalid/c.json",
            sellerFeeBasisPoints: 0,
            creators: null,
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
  );
  const pool = await createPool(w, {
    poolType: "nft-pool",
    collectionIds: [collection.address],
    loanAprBps: 2000,
  });
  const borrower = await createWallet(w.svm, w.admin, [w.currencyMint]);
  return { w, authority, ruleSet, collection: collection.address, pool, borrower };
}

async function mintPnft(p: PnftWorld): Promise<Address> {
  const mint = await generateKeyPairSigner();
  const a = p.authority;
  await sendWithLiteSvm(
    p.w.svm,
    [
      computeLimit(1_400_000),
      kit(
        createProgrammableNftV1({
          mint: mint.address,
          authority: a.address,
          ruleSet: p.ruleSet,
          data: {
            name: "Petrel",
            symbol: "PETL",
            uri: "https://example.invalid/p.json",
            sellerFeeBasisPoints: 0,
            creators: null,
            collection: p.collection,
            collectionSize: null,
          },
        }),
        [a, mint],
      ),
      kit(
        mintProgrammableNftV1({
          mint: mint.address,
          authority: a.address,
          owner: p.borrower.signer.address,
          ruleSet: p.ruleSet,
        }),
        [a],
      ),
      kit(verifyCollectionV1({ mint: mint.address, collectionMint: p.collection, authority: a.address }), [
        a,
      ]),
    ],
    a,
  );
  return mint.address;
}

let nonce = 1_000n;

async function take(p: PnftWorld, mint: Address) {
  const { w, borrower } = p;
  const token = await findAssociatedTokenPda(borrower.signer.address, mint);
  const custody = await readNftCustody(reader(w), { mint, tokenAccount: token });
  const ix = await getTakeLoanInstruction({
    programAddress: w.programAddress,
    borrower: borrower.signer,
    oracle: w.oracle,
    pool: p.pool.address,
    poolType: "nft-pool",
    bank: p.pool.bank.address,
    collateralMint: mint,
    borrowerCollateralTokenAccount: token,
    borrowerCurrencyTokenAccount: await tokenAccountOf(w, borrower, w.currencyMint),
    nonce: nonce++,
    principalBaseUnits: 100_000_000n,
    durationSeconds: 86_400n,
    collateralAmountBaseUnits: 1n,
    expectedAprBps: 2000,
    attestation: attest(w, { collection: p.collection, collateralValueBaseUnits: 500_000_000n }),
    custody,
    poolOwner: p.pool.bank.owner.signer.address,
  });
  const sent = await sendWithLiteSvm(w.svm, [computeLimit(400_000), ix], borrower.signer);
  return { ix, token, custody, computeUnits: sent.computeUnits };
}

describe("custody accounts per standard, read from the chain (real Token Metadata and Token Auth Rules)", {
  timeout: 120_000,
}, () => {
  it("reads a pNFT's standard, rule set, edition and token record; take locks it with the loan PDA as delegate, repay frees it", async () => {
    const p = await pnftWorld();
    const mint = await pnftWorldMint(p);
    const { ix, token, custody, computeUnits } = await take(p, mint);
    expect(custody).toMatchObject({
      standard: "ProgrammableNft",
      mint,
      tokenAccount: token,
      ruleSet: p.ruleSet,
    });
    console.log(`pNFT take-loan through the SDK: ${computeUnits} CU`);
    const loan = readLoan(p.w, ix.loan);
    expect(loan).toMatchObject({ status: "Ongoing", nftType: "ProgrammableNft", escrow: token });
    expect(ix.escrow).toBe(token);
    const [record] = await findTokenRecordPda(mint, token);
    expect(tokenRecord(p.w, record)).toEqual({ state: 1, delegate: ix.loan });
    expect(tokenAccount(p.w, token)).toEqual({ owner: p.borrower.signer.address, amount: 1n, frozen: true });

    await mintTo(
      p.w.svm,
      p.w.admin,
      p.w.currencyMint,
      await tokenAccountOf(p.w, p.borrower, p.w.currencyMint),
      10_000_000n,
    );
    const repay = await getRepayInstruction({
      programAddress: p.w.programAddress,
      borrower: p.borrower.signer,
      pool: loan.pool,
      bank: loan.bank,
      loan: ix.loan,
      borrowerCollateralTokenAccount: token,
      borrowerCurrencyTokenAccount: await tokenAccountOf(p.w, p.borrower, p.w.currencyMint),
      custody: await readNftCustody(reader(p.w), { mint, tokenAccount: loan.escrow }),
    });
    const repaid = await sendWithLiteSvm(p.w.svm, [computeLimit(400_000), repay], p.borrower.signer);
    console.log(`pNFT repay through the SDK: ${repaid.computeUnits} CU`);
    expect(readLoan(p.w, ix.loan).status).toBe("Repaid");
    expect(tokenRecord(p.w, record)).toEqual({ state: 0, delegate: null });
    expect(tokenAccount(p.w, token)).toEqual({ owner: p.borrower.signer.address, amount: 1n, frozen: true });
  });

  it("liquidate moves the pNFT to the pool owner's associated token account, unlocked and without delegate", async () => {
    const p = await pnftWorld();
    const mint = await pnftWorldMint(p);
    const { ix, token } = await take(p, mint);
    setUnixTime(p.w, getNow(p.w).unix + 3n * 86_400n);
    const liquidator = await createFundedSigner(p.w.svm, 1n);
    const loan = readLoan(p.w, ix.loan);
    const owner = p.pool.bank.owner.signer.address;
    const dest = await findAssociatedTokenPda(owner, mint);
    const liq = await getLiquidateInstruction({
      programAddress: p.w.programAddress,
      liquidator,
      pool: loan.pool,
      bank: loan.bank,
      loan: ix.loan,
      poolOwnerCollateralTokenAccount: dest,
      custody: {
        custody: await readNftCustody(reader(p.w), { mint, tokenAccount: loan.escrow }),
        borrower: loan.borrower,
        poolOwner: owner,
      },
    });
    const sent = await sendWithLiteSvm(p.w.svm, [computeLimit(400_000), liq], liquidator);
    console.log(`pNFT liquidate through the SDK: ${sent.computeUnits} CU`);
    expect(readLoan(p.w, ix.loan).status).toBe("Liquidated");
    expect(tokenAccount(p.w, dest)).toMatchObject({ owner, amount: 1n });
    expect(tokenAccount(p.w, token)).toMatchObject({ amount: 0n });
    const [destRecord] = await findTokenRecordPda(mint, dest);
    expect(tokenRecord(p.w, destRecord)).toEqual({ state: 0, delegate: null });
  });

  it("a classic NFT keeps the escrow; an address without metadata is refused with a sentence", async () => {
    const w = await createLendingWorld({ soPath: LENDING_SO, depositBaseUnits: 0n });
    const holder = await createWallet(w.svm, w.admin, []);
    const classic = await mintNft(w, holder, (await generateKeyPairSigner()).address);
    const read = reader(w);
    const any = (await generateKeyPairSigner()).address;
    expect(await readNftCustody(read, { mint: classic, tokenAccount: any })).toEqual({ standard: "Nft" });
    await expect(readNftCustody(read, { mint: any, tokenAccount: any })).rejects.toThrow(
      /is not an NFT with Metaplex metadata/,
    );
  });

  it("a Core asset: its owner and collection read from its account; the accounts of TakeLoan, Repay and Liquidate (LAYOUT.md 'Core assets')", async () => {
    const w = await createLendingWorld({ soPath: LENDING_SO, depositBaseUnits: 0n });
    const read = reader(w);
    const [asset, owner, collection, pool, bank, loan, dest] = await Promise.all(
      Array.from({ length: 7 }, async () => (await generateKeyPairSigner()).address),
    );
    const core = (address: Address, bytes: Uint8Array) =>
      w.svm.setAccount({
        address,
        lamports: 10_000_000n as never,
        data: bytes,
        programAddress: MPL_CORE_PROGRAM_ADDRESS,
        executable: false,
        space: BigInt(bytes.length),
      } as never);
    // Key::AssetV1, owner, UpdateAuthority::Collection(collection), then name and uri
    const data = new Uint8Array(90);
    data[0] = 1;
    data.set(getAddressEncoder().encode(owner!), 1);
    data[33] = 2;
    data.set(getAddressEncoder().encode(collection!), 34);
    core(asset!, data);
    const custody = await readNftCustody(read, { mint: asset!, tokenAccount: asset! });
    expect(custody).toEqual({ standard: "CoreNft", asset, collection, owner });
    const takeOf = (c: NftCustody) =>
      getTakeLoanInstruction({
        programAddress: w.programAddress,
        borrower: owner!,
        oracle: w.oracle.address,
        pool: pool!,
        poolType: "nft-pool",
        bank: bank!,
        collateralMint: asset!,
        borrowerCollateralTokenAccount: asset!,
        borrowerCurrencyTokenAccount: dest!,
        nonce: 1n,
        principalBaseUnits: 1n,
        durationSeconds: 86_400n,
        collateralAmountBaseUnits: 1n,
        expectedAprBps: 0,
        attestation: attest(w, { collection: collection!, collateralValueBaseUnits: 1n }),
        custody: c,
      });
    const take = await takeOf(custody);
    const a = take.accounts!;
    expect([a[7], a[8], a[9]].map((m) => [m!.address, m!.role])).toEqual(
      Array(3).fill([asset, AccountRole.WRITABLE]),
    );
    expect(a.slice(13).map((m) => m.address)).toEqual([collection, MPL_CORE_PROGRAM_ADDRESS]);
    expect([...take.data!.subarray(121, 124), take.data![2], take.data![3]]).toEqual([2, 0, 0, 0, 0]);
    expect(take.escrow).toBe(asset);
    const repay = await getRepayInstruction({
      programAddress: w.programAddress,
      borrower: owner!,
      pool: pool!,
      bank: bank!,
      loan: loan!,
      borrowerCollateralTokenAccount: asset!,
      borrowerCurrencyTokenAccount: dest!,
      custody,
    });
    expect(repay.accounts!.slice(6, 8).map((m) => m.address)).toEqual([asset, asset]);
    expect(repay.accounts!.slice(10).map((m) => m.address)).toEqual([collection, MPL_CORE_PROGRAM_ADDRESS]);
    const liquidate = await getLiquidateInstruction({
      programAddress: w.programAddress,
      liquidator: owner!,
      pool: pool!,
      bank: bank!,
      loan: loan!,
      poolOwnerCollateralTokenAccount: dest!,
      custody: { custody, borrower: owner!, poolOwner: dest! },
    });
    expect(liquidate.accounts!.slice(4).map((m) => m.address)).toEqual([
      asset,
      dest,
      "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
      collection,
      MPL_CORE_PROGRAM_ADDRESS,
    ]);
    // an asset outside any collection is refused before anything is built
    data[33] = 0;
    core(asset!, data.subarray(0, 60));
    const loose = await readNftCustody(read, { mint: asset!, tokenAccount: asset! });
    expect(loose).toMatchObject({ standard: "CoreNft", collection: null });
    await expect(takeOf(loose)).rejects.toThrow(/belongs to no collection/);
  });

  it("the pNFT block is the program's order: programs, sysvar and the metadata's rule set", async () => {
    const p = await pnftWorld();
    const mint = await pnftWorldMint(p);
    const token = await findAssociatedTokenPda(p.borrower.signer.address, mint);
    const custody = await readNftCustody(reader(p.w), { mint, tokenAccount: token });
    const repay = await getRepayInstruction({
      programAddress: p.w.programAddress,
      borrower: p.borrower.signer.address,
      pool: p.pool.address,
      bank: p.pool.bank.address,
      loan: any32(),
      borrowerCollateralTokenAccount: token,
      borrowerCurrencyTokenAccount: any32(),
      custody,
    });
    const a = repay.accounts!.map((m) => m.address);
    expect(a[6]).toBe(token);
    expect(a.slice(10)).toEqual([
      mint,
      custody.standard === "ProgrammableNft" ? custody.metadata : "",
      custody.standard === "ProgrammableNft" ? custody.masterEdition : "",
      (await findTokenRecordPda(mint, token))[0],
      SYSVAR_INSTRUCTIONS_ADDRESS,
      TOKEN_METADATA_PROGRAM_ADDRESS,
      TOKEN_AUTH_RULES_PROGRAM_ADDRESS,
      p.ruleSet,
      "11111111111111111111111111111111",
    ]);
  });
});

const any32 = () => "Sysvar1nstructions1111111111111111111111111" as Address;

/** A pNFT of the world's collection held by the borrower. */
function pnftWorldMint(p: PnftWorld): Promise<Address> {
  return mintPnft(p);
}
