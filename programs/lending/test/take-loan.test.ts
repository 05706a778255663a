import { computeTotalInterest } from "@cistern/protocol";
import {
  ADDRESS_LOOKUP_TABLE_PROGRAM_ADDRESS,
  findBankPda,
  findEscrowPda,
  getCreateBankInstruction,
  getUpdatePoolInstruction,
  LENDING_ERROR_CODE,
} from "@cistern/sdk";
import { AccountRole, type Address, generateKeyPairSigner, getAddressEncoder, lamports } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { demote, patchData, setMeta, swapAccount, truncateAccounts } from "./support/mutate.ts";
import { createMint, createTokenAccount, fundedTokenAccount, tokenBalance } from "./support/tokens.ts";
import {
  APR_BPS,
  attestation,
  bankOf,
  buildWorld,
  DAY,
  DEPOSIT,
  loanOf,
  nftLoanIx,
  nftTerms,
  ONE,
  poolOf,
  poolParams,
  tokenLoanIx,
  USD_PRICE,
  type World,
  withFreshNft,
} from "./support/world.ts";

const E = LENDING_ERROR_CODE;

function setPool(w: World, overrides: Parameters<typeof poolParams>[1]) {
  return w.h.send([
    getUpdatePoolInstruction({
      programAddress: w.program,
      owner: w.lender,
      pool: w.nftPool,
      poolType: "nft-pool",
      status: "Open",
      params: poolParams(w.collection, overrides),
    }),
  ]);
}

/** Writes an Address Lookup Table account listing `addresses` (56-byte header + 32-byte keys). */
async function lookupTable(w: World, addresses: Address[]): Promise<Address> {
  const alt = (await generateKeyPairSigner()).address;
  const data = new Uint8Array(56 + 32 * addresses.length);
  data[0] = 1; // LookupTable discriminant
  for (const [i, a] of addresses.entries()) data.set(getAddressEncoder().encode(a), 56 + 32 * i);
  w.h.svm.setAccount({
    address: alt,
    data,
    executable: false,
    lamports: lamports(10_000_000n),
    programAddress: ADDRESS_LOOKUP_TABLE_PROGRAM_ADDRESS,
    space: BigInt(data.length),
  });
  return alt;
}

describe("take loan against an NFT", () => {
  it("locks the NFT in the loan escrow, pays the principal and records the loan", async () => {
    const w = await buildWorld();
    const terms = nftTerms(w);
    const ix = await nftLoanIx(w, terms);
    const before = tokenBalance(w.h, w.borrowerAta);
    const out = await w.h.send([ix]);
    expect(out.computeUnits).toBeLessThanOrEqual(20_000n);

    const [escrow] = await findEscrowPda(w.program, ix.loan);
    expect(ix.escrow).toBe(escrow);
    expect(tokenBalance(w.h, escrow)).toBe(1n);
    expect(tokenBalance(w.h, w.nft.account)).toBe(0n);
    const escrowOwner = w.h.data(escrow).subarray(32, 64);
    expect(Array.from(escrowOwner)).toEqual(Array.from(getAddressEncoder().encode(ix.loan)));
    expect(tokenBalance(w.h, w.borrowerAta)).toBe(before + 100n * ONE);
    expect(tokenBalance(w.h, w.vault)).toBe(DEPOSIT - 100n * ONE);

    const l = loanOf(w, ix.loan);
    const now = w.h.now;
    expect(l).toMatchObject({
      status: "Ongoing",
      kind: "ClassicLoan",
      isDefi: false,
      borrower: w.borrower.address,
      pool: w.nftPool,
      bank: w.bank,
      currencyMint: w.currency,
      collateralMint: w.nft.mint,
      collection: w.collection,
      escrow,
      nonce: terms.nonce,
      collateralAmount: 1n,
      principal: 100n * ONE,
      aprBps: APR_BPS,
      durationSeconds: 7n * DAY,
      createdAt: now,
      expiredAt: now + 7n * DAY,
      repaidAt: 0n,
      liquidatedAt: 0n,
      soldAt: 0n,
      collateralValue: 1_000n * ONE,
      attestationSlot: w.h.slot,
      extendedTo: null,
    });
    expect(l.interest).toBe(
      computeTotalInterest({ aprBps: APR_BPS, principal: 100n * ONE, durationSeconds: 7n * DAY }),
    );

    const b = bankOf(w);
    expect(b.totalLiquidity).toBe(DEPOSIT);
    expect(b.availableLiquidity).toBe(DEPOSIT - 100n * ONE);
    expect(b.ongoingLoans).toBe(1n);
    expect(b.borrowedAt).toBe(now);
    const p = poolOf(w);
    expect(p).toMatchObject({
      totalLoans: 1n,
      currentLoans: 1n,
      borrowedAmount: 100n * ONE,
      lastLoanAt: now,
    });
    expect(p.collections[0]).toMatchObject({ borrowedAmount: 100n * ONE, ongoingLoans: 1n });
  });

  it("rejects an attestation that is stale, from the future, or not co-signed by the oracle", async () => {
    const w = await buildWorld();
    w.h.setClock(5_000n, w.h.now);
    const at = (slot: bigint) => nftLoanIx(w, nftTerms(w, { attestation: attestation(w, { slot }) }));
    await w.h.expectCode([await at(5_000n - 151n)], E.StaleAttestation);
    await w.h.expectCode([await at(5_001n)], E.FutureAttestation);
    const impostor = await generateKeyPairSigner();
    const ix = await at(5_000n - 150n);
    await w.h.expectCode(
      [setMeta(ix, 1, { address: impostor.address, role: AccountRole.READONLY_SIGNER, signer: impostor })],
      E.WrongOracle,
    );
    await w.h.expectCode([demote(ix, 1)], E.MissingSigner);
    await w.h.expectCode([demote(ix, 0, AccountRole.WRITABLE)], E.MissingSigner);
    await w.h.send([ix]);
  });

  it("enforces duration bounds, the pool rate and USD limits", async () => {
    const w = await buildWorld();
    const take = (o: Parameters<typeof nftTerms>[1]) => nftLoanIx(w, nftTerms(w, o));
    await w.h.expectCode([await take({ durationSeconds: DAY - 1n })], E.InvalidDuration);
    await w.h.expectCode([await take({ durationSeconds: 30n * DAY + 1n })], E.InvalidDuration);
    await w.h.expectCode([await take({ expectedAprBps: APR_BPS + 1 })], E.AprMismatch);
    // 9.999999 USD < 10 USD minimum
    await w.h.expectCode([await take({ principalBaseUnits: 10n * ONE - 1n })], E.BelowMinAmountUsd);
    // the same amount is fine when the currency is worth more
    await w.h.send([
      await take({
        principalBaseUnits: 10n * ONE - 1n,
        attestation: attestation(w, { currencyPriceMicroUsd: 2n * USD_PRICE }),
      }),
    ]);
    await setPool(w, { maxAmountMicroUsd: 150n * USD_PRICE });
    const w2 = await withFreshNft(w);
    await w.h.expectCode(
      [await nftLoanIx(w2, nftTerms(w, { principalBaseUnits: 150n * ONE + 1n }))],
      E.AboveMaxAmountUsd,
    );
    await w.h.send([
      await nftLoanIx(w2, nftTerms(w, { principalBaseUnits: 150n * ONE, durationSeconds: DAY })),
    ]);
    const w3 = await withFreshNft(w);
    await w.h.send([
      await nftLoanIx(w3, nftTerms(w, { principalBaseUnits: 10n * ONE, durationSeconds: 30n * DAY })),
    ]);
  });

  it("enforces LTV against the attested value and the collection exposure", async () => {
    const w = await buildWorld();
    // LTV 50% of 1000 = 500
    await w.h.expectCode(
      [await nftLoanIx(w, nftTerms(w, { principalBaseUnits: 500n * ONE + 1n }))],
      E.LtvExceeded,
    );
    // exposure 1% of 10_000 = 100
    await setPool(w, { collections: [{ id: w.collection, ltvBps: 5000, exposureBps: 100 }] });
    await w.h.send([await nftLoanIx(w, nftTerms(w, { principalBaseUnits: 60n * ONE }))]);
    const w2 = await withFreshNft(w);
    const second = (principal: bigint) => nftLoanIx(w2, nftTerms(w, { principalBaseUnits: principal }));
    await w.h.expectCode([await second(40n * ONE + 1n)], E.ExposureExceeded);
    await w.h.send([await second(40n * ONE)]);
    expect(poolOf(w).collections[0]?.borrowedAmount).toBe(100n * ONE);
  });

  it("refuses a collection the pool does not accept and a fungible token as an NFT", async () => {
    const w = await buildWorld();
    const other = (await generateKeyPairSigner()).address;
    await w.h.expectCode(
      [await nftLoanIx(w, nftTerms(w, { attestation: attestation(w, { collection: other }) }))],
      E.CollectionNotInPool,
    );
    await w.h.expectCode(
      [await nftLoanIx(w, nftTerms(w, { collateralAmountBaseUnits: 2n }))],
      E.InvalidCollateral,
    );
    const fungible = await createMint(w.h, 0);
    const acct = await fundedTokenAccount(w.h, fungible, w.borrower.address, 5n);
    await w.h.expectCode(
      [await nftLoanIx({ ...w, nft: { mint: fungible, account: acct } }, nftTerms(w))],
      E.InvalidCollateral,
    );
  });

  it("checks borrower conditions and the whitelist", async () => {
    const w = await buildWorld();
    const conditions = {
      isEnabled: true,
      whitelistEnabled: false,
      liquidationThresholdBps: 0,
      minAgeSeconds: 30n * DAY,
      minLoanCount: 1n,
      minVolumeMicroUsd: 1_000n * USD_PRICE,
      whitelist: null,
    };
    await setPool(w, { conditions });
    for (const facts of [
      { walletAgeSeconds: 30n * DAY - 1n },
      { pastLoans: 0n },
      { volumeMicroUsd: 1_000n * USD_PRICE - 1n },
    ]) {
      await w.h.expectCode(
        [await nftLoanIx(w, nftTerms(w, { attestation: attestation(w, facts) }))],
        E.ConditionsNotMet,
      );
    }
    const listed = await lookupTable(w, [w.lender.address, w.borrower.address]);
    const unlisted = await lookupTable(w, [w.lender.address]);
    await setPool(w, { conditions: { ...conditions, whitelistEnabled: true, whitelist: listed } });
    // missing ALT account, another table, then a table without the borrower
    await w.h.expectCode([await nftLoanIx(w)], E.InvalidWhitelist);
    await w.h.expectCode([await nftLoanIx(w, nftTerms(w), { whitelist: unlisted })], E.InvalidWhitelist);
    await setPool(w, { conditions: { ...conditions, whitelistEnabled: true, whitelist: unlisted } });
    await w.h.expectCode([await nftLoanIx(w, nftTerms(w), { whitelist: unlisted })], E.NotWhitelisted);
    await setPool(w, { conditions: { ...conditions, whitelistEnabled: true, whitelist: listed } });
    await w.h.send([await nftLoanIx(w, nftTerms(w), { whitelist: listed })]);
  });

  it("never lends more than the bank's available liquidity", async () => {
    const w = await buildWorld(100n * ONE);
    await setPool(w, { collections: [{ id: w.collection, ltvBps: 9000, exposureBps: 10_000 }] });
    // another pool of the same bank lends 40 first
    await w.h.send([await tokenLoanIx(w, 10n, { principalBaseUnits: 40n * ONE })]);
    await w.h.expectCode(
      [await nftLoanIx(w, nftTerms(w, { principalBaseUnits: 60n * ONE + 1n }))],
      E.InsufficientLiquidity,
    );
    await w.h.send([await nftLoanIx(w, nftTerms(w, { principalBaseUnits: 60n * ONE }))]);
    expect(bankOf(w).availableLiquidity).toBe(0n);
    expect(tokenBalance(w.h, w.vault)).toBe(0n);
  });

  it("rejects foreign accounts: pool, vault, token program, loan PDA, collateral owner", async () => {
    const w = await buildWorld();
    const ix = await nftLoanIx(w);
    const fakeVault = await createTokenAccount(w.h, w.currency, w.lender.address);
    await w.h.expectCode([swapAccount(ix, 5, fakeVault)], E.AccountMismatch);
    await w.h.expectCode([swapAccount(ix, 3, w.bank)], E.InvalidDiscriminator);
    // a byte-for-byte copy of the pool owned by another program
    const forged = (await generateKeyPairSigner()).address;
    w.h.svm.setAccount({
      address: forged,
      data: w.h.data(w.nftPool),
      executable: false,
      lamports: lamports(10_000_000n),
      programAddress: w.lender.address,
      space: 768n,
    });
    await w.h.expectCode([swapAccount(ix, 3, forged)], E.InvalidOwner);
    // another bank of the same lender (pool.bank differs)
    const otherCurrency = await createMint(w.h, 6);
    await w.h.send([
      await getCreateBankInstruction({ programAddress: w.program, owner: w.lender, mint: otherCurrency }),
    ]);
    const [otherBank] = await findBankPda(w.program, w.lender.address, otherCurrency);
    await w.h.expectCode([swapAccount(ix, 4, otherBank)], E.AccountMismatch);
    await w.h.expectCode(
      [swapAccount(ix, 11, (await generateKeyPairSigner()).address)],
      E.InvalidTokenProgram,
    );
    await w.h.expectCode([swapAccount(ix, 12, w.bank)], E.InvalidSystemProgram);
    await w.h.expectCode([patchData(ix, (d) => (d[1] = ((d[1] ?? 0) + 1) % 256))], E.InvalidPda);
    // principal to the vault itself
    await w.h.expectCode([swapAccount(ix, 10, w.vault)], E.AccountMismatch);
    // principal account in another mint
    const otherMint = await createMint(w.h, 6);
    await w.h.expectCode(
      [swapAccount(ix, 10, await createTokenAccount(w.h, otherMint, w.borrower.address))],
      E.InvalidMint,
    );
    // collateral token account of someone else
    const stranger = await w.h.wallet();
    const strangerNft = await fundedTokenAccount(w.h, w.nft.mint, stranger.address, 0n);
    await w.h.expectCode([swapAccount(ix, 9, strangerNft)], E.InvalidTokenAccount);
    await w.h.expectCode([truncateAccounts(ix, 12)], E.NotEnoughAccounts);
    // an overflowing principal (USD value above u64)
    await w.h.expectCode(
      [
        await nftLoanIx(
          w,
          nftTerms(w, {
            principalBaseUnits: 0xffff_ffff_ffff_ffffn,
            attestation: attestation(w, { currencyPriceMicroUsd: 10n ** 12n }),
          }),
        ),
      ],
      E.MathOverflow,
    );
    await w.h.send([ix]);
    // the same loan PDA cannot be opened twice
    await w.h.expectCode([ix], E.AlreadyInitialized);
  });
});

describe("take loan against tokens", () => {
  it("moves N collateral tokens into escrow", async () => {
    const w = await buildWorld();
    const amount = 250_000_000_000n;
    const before = tokenBalance(w.h, w.borrowerCollateralAta);
    const ix = await tokenLoanIx(w, amount);
    const out = await w.h.send([ix]);
    expect(out.computeUnits).toBeLessThanOrEqual(20_000n);
    expect(tokenBalance(w.h, ix.escrow)).toBe(amount);
    expect(tokenBalance(w.h, w.borrowerCollateralAta)).toBe(before - amount);
    const l = loanOf(w, ix.loan);
    expect(l).toMatchObject({
      isDefi: true,
      collateralMint: w.collateralMint,
      collection: w.collateralMint,
      collateralAmount: amount,
      principal: 100n * ONE,
      status: "Ongoing",
    });
    expect(poolOf(w, w.defiPool)).toMatchObject({ currentLoans: 1n, totalLoans: 1n });
  });

  it("requires the attested collateral to be the pledged mint", async () => {
    const w = await buildWorld();
    await w.h.expectCode(
      [await tokenLoanIx(w, 10n, { attestation: attestation(w, { collection: w.collection }) })],
      E.CollectionNotInPool,
    );
    const otherMint = await createMint(w.h, 9);
    const otherAta = await fundedTokenAccount(w.h, otherMint, w.borrower.address, 1_000n);
    const ix = await tokenLoanIx(w, 10n);
    await w.h.expectCode([swapAccount(swapAccount(ix, 8, otherMint), 9, otherAta)], E.CollectionNotInPool);
  });
});
