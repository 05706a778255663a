/**
 * The program trusts the chain, not the oracle: an NFT's collection comes from its Metaplex metadata, the
 * config is its PDA, reserved bytes are zero, counters never clamp, and the borrower moves only its own money.
 */
import {
  findMetadataPda,
  getExtendInstruction,
  getRepayInstruction,
  getUpdateConfigInstruction,
  LENDING_ERROR_CODE,
  type LoanTerms,
} from "@cistern/sdk";
import { setNftMetadata } from "@cistern/sdk/testing";
import { type Address, generateKeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { patchData, swapAccount } from "./support/mutate.ts";
import { createNft, createTokenAccount, tokenBalance } from "./support/tokens.ts";
import {
  attestation,
  buildWorld,
  DAY,
  loanOf,
  nftLoanIx,
  nftTerms,
  tokenLoanIx,
  type World,
} from "./support/world.ts";

const E = LENDING_ERROR_CODE;
/** TakeLoan account index of the NFT metadata (nft-pool). */
const METADATA_INDEX = 13;

/** The world's borrower holding a fresh NFT whose metadata is what `collection` says. */
async function withNft(w: World, collection: Address | null): Promise<World> {
  return { ...w, nft: await createNft(w.h, w.borrower.address, collection) };
}

function extendIx(w: World, oldLoan: Address, terms: LoanTerms = nftTerms(w)) {
  return getExtendInstruction({
    programAddress: w.program,
    borrower: w.borrower,
    oracle: w.oracle,
    pool: w.nftPool,
    bank: w.bank,
    collateralMint: w.nft.mint,
    borrowerCurrencyTokenAccount: w.borrowerAta,
    oldLoan,
    ...terms,
  });
}

describe("an NFT's collection is read from its Metaplex metadata, never from the oracle", () => {
  it("refuses a self-minted NFT that the oracle attests as a member (no metadata, no collection, unverified)", async () => {
    const w = await buildWorld();
    const vaultBefore = tokenBalance(w.h, w.vault);
    // the oracle's attestation names the pool's collection in every case
    const noMetadata = await withNft(w, null);
    await w.h.expectCode([await nftLoanIx(noMetadata)], E.InvalidMetadata);
    const noCollection = await withNft(w, null);
    await setNftMetadata(w.h.svm, noCollection.nft.mint, null);
    await w.h.expectCode([await nftLoanIx(noCollection)], E.CollectionNotVerified);
    const unverified = await withNft(w, null);
    await setNftMetadata(w.h.svm, unverified.nft.mint, { key: w.collection, verified: false });
    await w.h.expectCode([await nftLoanIx(unverified)], E.CollectionNotVerified);
    expect(tokenBalance(w.h, w.vault)).toBe(vaultBefore);
  });

  it("refuses an NFT of another verified collection, even when the oracle names the pool's", async () => {
    const w = await buildWorld();
    const other = (await generateKeyPairSigner()).address;
    const stranger = await withNft(w, other);
    await w.h.expectCode([await nftLoanIx(stranger)], E.CollectionNotInPool);
    // and an attestation naming the other collection is refused too: it is not one of the pool's
    const named = await nftLoanIx(
      stranger,
      nftTerms(w, { attestation: attestation(w, { collection: other }) }),
    );
    await w.h.expectCode([named], E.CollectionNotInPool);
  });

  it("refuses metadata owned by another program, at a non-PDA address, naming another mint, or truncated", async () => {
    const w = await buildWorld();
    const foreignOwner = await withNft(w, null);
    await setNftMetadata(
      w.h.svm,
      foreignOwner.nft.mint,
      { key: w.collection, verified: true },
      {
        owner: (await generateKeyPairSigner()).address,
      },
    );
    await w.h.expectCode([await nftLoanIx(foreignOwner)], E.InvalidMetadata);

    // a well-formed Token Metadata account, but at an address that is not the mint's metadata PDA
    const elsewhere = (await generateKeyPairSigner()).address;
    await setNftMetadata(w.h.svm, w.nft.mint, { key: w.collection, verified: true }, { address: elsewhere });
    await w.h.expectCode([swapAccount(await nftLoanIx(w), METADATA_INDEX, elsewhere)], E.InvalidMetadata);

    const otherMint = await withNft(w, null);
    await setNftMetadata(
      w.h.svm,
      otherMint.nft.mint,
      { key: w.collection, verified: true },
      { mint: w.nft.mint },
    );
    await w.h.expectCode([await nftLoanIx(otherMint)], E.InvalidMetadata);

    const truncated = await withNft(w, w.collection);
    const [metadata] = await findMetadataPda(truncated.nft.mint);
    const account = w.h.svm.getAccount(metadata);
    if (!account.exists) throw new Error("metadata missing");
    w.h.svm.setAccount({ ...account, data: account.data.subarray(0, 120), space: 120n });
    await w.h.expectCode([await nftLoanIx(truncated)], E.InvalidMetadata);
  });

  it("a bump that does not derive the metadata PDA is refused", async () => {
    const w = await buildWorld();
    const ix = patchData(await nftLoanIx(w), (d) => {
      d[3] = (d[3]! + 1) % 256;
    });
    await w.h.expectCode([ix], E.InvalidMetadata);
  });

  it("lends against a verified member and records the collection it read", async () => {
    const w = await buildWorld();
    const ix = await nftLoanIx(w);
    await w.h.send([ix]);
    expect(loanOf(w, ix.loan).collection).toBe(w.collection);
  });
});

describe("accounts and bytes the program checks itself", () => {
  it("refuses a config account that is not the config PDA, even with the right owner and data", async () => {
    const w = await buildWorld();
    const configPda = (await nftLoanIx(w)).accounts![2]!.address;
    const real = w.h.svm.getAccount(configPda);
    if (!real.exists) throw new Error("config missing");
    const forged = (await generateKeyPairSigner()).address;
    w.h.svm.setAccount({ ...real, address: forged });
    await w.h.expectCode([swapAccount(await nftLoanIx(w), 2, forged)], E.InvalidPda);
    const update = await getUpdateConfigInstruction({
      programAddress: w.program,
      admin: w.admin,
      paused: true,
    });
    await w.h.expectCode([swapAccount(update, 1, forged)], E.InvalidPda);
  });

  it("refuses non-zero reserved bytes (TakeLoan bytes 121..124 beyond the standard they name, a token loan's byte 3, UpdateConfig byte 99)", async () => {
    const w = await buildWorld();
    await w.h.expectCode(
      [
        patchData(await nftLoanIx(w), (d) => {
          d[121] = 4; // no such standard (1 pNFT, 2 Core, 3 compressed: byte 121 names the collateral's standard)
        }),
      ],
      E.InvalidInstruction,
    );
    await w.h.expectCode(
      [
        patchData(await nftLoanIx(w), (d) => {
          d[122] = 1; // a PDA bump for a classic NFT
        }),
      ],
      E.InvalidInstruction,
    );
    await w.h.expectCode(
      [
        patchData(await tokenLoanIx(w, 1_000n), (d) => {
          d[3] = 7;
        }),
      ],
      E.InvalidInstruction,
    );
    const update = await getUpdateConfigInstruction({
      programAddress: w.program,
      admin: w.admin,
      paused: false,
    });
    await w.h.expectCode(
      [
        patchData(update, (d) => {
          d[99] = 1;
        }),
      ],
      E.InvalidInstruction,
    );
  });

  it("pays the principal only into a currency account the borrower owns", async () => {
    const w = await buildWorld();
    const someoneElse = await generateKeyPairSigner();
    const theirs = await createTokenAccount(w.h, w.currency, someoneElse.address);
    const ix = await nftLoanIx(w);
    await w.h.expectCode([swapAccount(ix, 10, theirs)], E.InvalidTokenAccount);
    await w.h.expectCode([swapAccount(ix, 10, w.vault)], E.AccountMismatch);
  });

  it("repays only from the borrower's own currency account", async () => {
    const w = await buildWorld();
    const take = await nftLoanIx(w);
    await w.h.send([take]);
    const other = await generateKeyPairSigner();
    const theirs = await createTokenAccount(w.h, w.currency, other.address);
    const repay = await getRepayInstruction({
      programAddress: w.program,
      borrower: w.borrower,
      pool: w.nftPool,
      bank: w.bank,
      loan: take.loan,
      borrowerCollateralTokenAccount: w.nft.account,
      borrowerCurrencyTokenAccount: theirs,
    });
    await w.h.expectCode([repay], E.InvalidTokenAccount);
  });

  it("never clamps a counter: a repay that would take the pool's borrowed total below zero fails", async () => {
    const w = await buildWorld();
    const take = await nftLoanIx(w);
    await w.h.send([take]);
    const pool = w.h.svm.getAccount(w.nftPool);
    if (!pool.exists) throw new Error("pool missing");
    const data = new Uint8Array(pool.data);
    new DataView(data.buffer).setBigUint64(296, 0n, true); // pool.borrowedAmount
    w.h.svm.setAccount({ ...pool, data });
    const repay = await getRepayInstruction({
      programAddress: w.program,
      borrower: w.borrower,
      pool: w.nftPool,
      bank: w.bank,
      loan: take.loan,
      borrowerCollateralTokenAccount: w.nft.account,
      borrowerCurrencyTokenAccount: w.borrowerAta,
    });
    await w.h.expectCode([repay], E.InconsistentCounters);
    expect(loanOf(w, take.loan).status).toBe("Ongoing");
  });
});

describe("extend: adversarial accounts and a liquidatable loan", () => {
  async function openNftLoan() {
    const w = await buildWorld();
    const take = await nftLoanIx(w);
    await w.h.send([take]);
    w.h.advance(DAY, 10n);
    return { w, loan: take.loan };
  }

  it("refuses another wallet extending the borrower's loan", async () => {
    const { w, loan } = await openNftLoan();
    const thief = await w.h.wallet();
    const theirs = await createTokenAccount(w.h, w.currency, thief.address);
    const ix = await getExtendInstruction({
      programAddress: w.program,
      borrower: thief,
      oracle: w.oracle,
      pool: w.nftPool,
      bank: w.bank,
      collateralMint: w.nft.mint,
      borrowerCurrencyTokenAccount: theirs,
      oldLoan: loan,
      ...nftTerms(w),
    });
    await w.h.expectCode([ix], E.Unauthorized);
  });

  it("refuses a wrong old escrow and a currency account that is not the borrower's", async () => {
    const { w, loan } = await openNftLoan();
    const second = await withNft(w, w.collection);
    const other = await nftLoanIx(second);
    await w.h.send([other]);
    const ix = await extendIx(w, loan);
    // accounts: 6 old loan, 7 old escrow, 11 borrower currency account
    await w.h.expectCode([swapAccount(ix, 7, loanOf(w, other.loan).escrow)], E.AccountMismatch);
    const theirs = await createTokenAccount(w.h, w.currency, (await generateKeyPairSigner()).address);
    await w.h.expectCode([swapAccount(ix, 11, theirs)], E.InvalidTokenAccount);
    await w.h.expectCode([swapAccount(ix, 11, w.vault)], E.AccountMismatch);
  });

  it("extends a loan until the last second of grace and refuses one second later", async () => {
    const w = await buildWorld();
    const twoDays = () => nftTerms(w, { durationSeconds: 2n * DAY });
    const first = await nftLoanIx(w, twoDays());
    const w2 = await withNft(w, w.collection);
    const second = await nftLoanIx(w2, twoDays());
    await w.h.send([first, second]);
    const expiredAt = loanOf(w, first.loan).expiredAt;
    const graceEnd = expiredAt + 2n * 3_600n; // 1 hour per loan day
    w.h.setClock(w.h.slot + 1n, graceEnd);
    await w.h.send([await extendIx(w, first.loan, twoDays())]);
    expect(loanOf(w, first.loan).status).toBe("Repaid");
    w.h.setClock(w.h.slot + 1n, graceEnd + 1n);
    const before = tokenBalance(w.h, w.borrowerAta);
    await w.h.expectCode([await extendIx(w2, second.loan, twoDays())], E.LoanLiquidatable);
    expect(loanOf(w, second.loan).status).toBe("Ongoing");
    expect(tokenBalance(w.h, w.borrowerAta)).toBe(before);
  });
});
