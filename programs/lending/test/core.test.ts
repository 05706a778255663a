// Loans against Metaplex Core assets (CoreNft, nftType 2) through the real Core program (the vendored binary at its
// mainnet id): the asset is transferred to the loan PDA at TakeLoan (Core TransferV1) and back by the loan PDA at
// Repay, or to the pool owner at Liquidate. What the chain holds is read after every step.
import { LENDING_ERROR_CODE } from "@cistern/sdk";
import {
  AccountRole,
  type Address,
  generateKeyPairSigner,
  getAddressEncoder,
  type Instruction,
  lamports,
} from "@solana/kit";
import { describe, expect, it } from "vitest";
import {
  addPlugin,
  addTransferOracle,
  approvePlugin,
  burn,
  changeCollectionAuthority,
  createAsset,
  PLUGIN,
  type Plugin,
  readAsset,
  rename,
  revokePlugin,
  transfer,
  updatePlugin,
} from "./support/core.ts";
import {
  type CoreWorld,
  coreWorld,
  liquidateCoreIx,
  mintAsset,
  moveCoreIx,
  newCollection,
  type Opened,
  openLoan,
  ownerOf,
  repayCoreIx,
  takeCoreIx,
} from "./support/core-world.ts";
import { expectOk } from "./support/kit.ts";
import { fundedTokenAccount, tokenBalance } from "./support/tokens.ts";
import { bankOf, createPool, DAY, loanOf, otherLenderPool, poolOf, poolParams } from "./support/world.ts";

const E = LENDING_ERROR_CODE;
const ro = (a: Address) => ({ address: a, role: AccountRole.READONLY });
const wr = (a: Address) => ({ address: a, role: AccountRole.WRITABLE });

let poolSeed = 201n;

/** Repays `repaid` a day on, liquidates `defaulted` after its grace; each asset ends where it must. */
async function repayOneLiquidateOther(w: CoreWorld, repaid: Opened, defaulted: Opened) {
  w.h.advance(DAY);
  expectOk(await w.h.trySend([await repayCoreIx(w, repaid.loan, repaid.asset)], w.borrower));
  expect(ownerOf(w, repaid.asset)).toBe(w.borrower.address);
  w.h.advance(30n * DAY);
  const liquidator = await w.h.wallet();
  expectOk(
    await w.h.trySend([await liquidateCoreIx(w, liquidator, defaulted.loan, defaulted.asset)], liquidator),
  );
  expect(ownerOf(w, defaulted.asset)).toBe(w.lender.address);
}

/** Expects the take to be refused with `code` and nothing to have moved. */
async function expectRefused(
  w: CoreWorld,
  ix: Instruction & { loan: Address },
  asset: Address,
  code: number,
) {
  const out = await w.h.trySend([ix]);
  expect(out.ok).toBe(false);
  expect(out.customCode).toBe(code);
  expect(w.h.exists(ix.loan)).toBe(false);
  expect(ownerOf(w, asset)).toBe(w.borrower.address);
}

describe("loans against Metaplex Core assets (the real Core program)", { timeout: 120_000 }, () => {
  it("take: the loan PDA owns the asset, still in its collection; the borrower cannot transfer, burn, update or delegate it", async () => {
    const w = await coreWorld();
    const asset = await mintAsset(w);
    const ix = await takeCoreIx(w, asset);
    const borrowerBefore = tokenBalance(w.h, w.borrowerAta);
    const out = expectOk(await w.h.trySend([ix]));
    console.log(`Core take-loan transaction: ${out.computeUnits} CU`);
    expect(out.computeUnits).toBeLessThanOrEqual(60_000n);

    expect(readAsset(w.h.data(asset))).toEqual({ key: 1, owner: ix.loan, updateAuthority: w.coreCollection });
    const loan = loanOf(w, ix.loan);
    expect(loan.status).toBe("Ongoing");
    expect(w.h.data(ix.loan)[7]).toBe(2); // nftType CoreNft
    expect(loan.escrow).toBe(asset);
    expect(loan.collateralMint).toBe(asset);
    expect(loan.collection).toBe(w.coreCollection);
    expect(tokenBalance(w.h, w.borrowerAta) - borrowerBefore).toBe(loan.principal);
    expect(poolOf(w, w.corePool).currentLoans).toBe(1n);

    const stranger = await w.h.wallet();
    const tries: [string, Instruction][] = [
      ["transfer", transfer(asset, w.coreCollection, w.borrower, stranger.address)],
      ["burn", burn(asset, w.coreCollection, w.borrower)],
      ["update", rename(asset, w.coreCollection, w.borrower, "Mine")],
      [
        "freeze delegate",
        addPlugin(asset, w.coreCollection, w.borrower, { type: PLUGIN.FreezeDelegate, frozen: true }),
      ],
      [
        "transfer delegate",
        addPlugin(asset, w.coreCollection, w.borrower, {
          type: PLUGIN.TransferDelegate,
          authority: { kind: "Address", address: w.borrower.address },
        }),
      ],
    ];
    for (const [what, attempt] of tries) {
      const r = await w.h.trySend([attempt], w.borrower);
      expect(r.ok, what).toBe(false);
    }
    expect(readAsset(w.h.data(asset))).toEqual({ key: 1, owner: ix.loan, updateAuthority: w.coreCollection });
  });

  it("repay: the loan PDA transfers the asset back; the borrower moves it freely again", async () => {
    const w = await coreWorld();
    const { loan, asset } = await openLoan(w);
    w.h.advance(DAY);
    const out = expectOk(await w.h.trySend([await repayCoreIx(w, loan, asset)], w.borrower));
    console.log(`Core repay transaction: ${out.computeUnits} CU`);
    expect(loanOf(w, loan).status).toBe("Repaid");
    expect(ownerOf(w, asset)).toBe(w.borrower.address);
    expect(poolOf(w, w.corePool).currentLoans).toBe(0n);
    const friend = await w.h.wallet();
    expectOk(await w.h.trySend([transfer(asset, w.coreCollection, w.borrower, friend.address)], w.borrower));
    expect(ownerOf(w, asset)).toBe(friend.address);
  });

  it("liquidate: after expiry and grace the loan PDA transfers the asset to the pool owner", async () => {
    const w = await coreWorld();
    const { loan, asset } = await openLoan(w);
    const liquidator = await w.h.wallet();
    // not before expiry + grace
    await w.h.expectCode([await liquidateCoreIx(w, liquidator, loan, asset)], E.NotLiquidatable, liquidator);
    w.h.advance(30n * DAY);
    // the receiver is the pool owner, no one else
    const thief = await w.h.wallet();
    const wrong = await liquidateCoreIx(w, liquidator, loan, asset);
    const accounts = [...(wrong.accounts ?? [])];
    accounts[5] = ro(thief.address);
    await w.h.expectCode([{ ...wrong, accounts }], E.AccountMismatch, liquidator);
    const totalBefore = bankOf(w).totalLiquidity;
    const out = expectOk(await w.h.trySend([await liquidateCoreIx(w, liquidator, loan, asset)], liquidator));
    console.log(`Core liquidate transaction: ${out.computeUnits} CU`);
    expect(loanOf(w, loan).status).toBe("Liquidated");
    expect(ownerOf(w, asset)).toBe(w.lender.address);
    expect(bankOf(w).totalLiquidity).toBe(totalBefore - loanOf(w, loan).principal);
    // the pool owner holds it as any owner does
    expectOk(await w.h.trySend([transfer(asset, w.coreCollection, w.lender, thief.address)], w.lender));
  });

  it("refuses an asset outside the pool's collections, a look-alike collection or asset owned by another program, the wrong collection account, an asset the borrower does not own", async () => {
    const w = await coreWorld();
    // a real Core collection the pool does not list
    const other = await newCollection(w, w.authority);
    const outsider = await mintAsset(w, other);
    await expectRefused(w, await takeCoreIx(w, outsider, other), outsider, E.CollectionNotInPool);

    // a look-alike: the bytes of a Core collection under another program's ownership, listed by a pool, and an
    // asset (Core's) naming it
    const lookAlike = (await generateKeyPairSigner()).address;
    const realCollection = w.h.svm.getAccount(w.coreCollection);
    w.h.svm.setAccount({
      ...realCollection,
      address: lookAlike,
      programAddress: w.authority.address,
    } as never);
    const lookAlikePool = await createPool(
      w.h,
      w.lender,
      w.currency,
      "nft-pool",
      poolSeed++,
      poolParams(lookAlike),
    );
    const forged = await mintAsset(w);
    const forgedAccount = w.h.svm.getAccount(forged);
    const bytes = new Uint8Array(w.h.data(forged));
    bytes.set(getAddressEncoder().encode(lookAlike), 34); // update authority Collection(lookAlike)
    w.h.svm.setAccount({ ...forgedAccount, address: forged, data: bytes } as never);
    expect(readAsset(w.h.data(forged)).updateAuthority).toBe(lookAlike);
    await expectRefused(w, await takeCoreIx(w, forged, lookAlike, lookAlikePool), forged, E.InvalidMetadata);

    // an asset's bytes under another program's ownership, naming the real collection
    const fake = (await generateKeyPairSigner()).address;
    const realAsset = w.h.svm.getAccount(await mintAsset(w));
    w.h.svm.setAccount({ ...realAsset, address: fake, programAddress: w.authority.address } as never);
    const fakeIx = await takeCoreIx(w, fake);
    const r = await w.h.trySend([fakeIx]);
    expect(r.customCode).toBe(E.InvalidMetadata);
    expect(w.h.exists(fakeIx.loan)).toBe(false);

    // account 13 is not the collection the asset names
    const asset = await mintAsset(w);
    const wrongCollection = await takeCoreIx(w, asset, w.coreCollection);
    const accounts = [...(wrongCollection.accounts ?? [])];
    accounts[13] = ro(other);
    await expectRefused(w, { ...wrongCollection, accounts }, asset, E.InvalidMetadata);

    // an asset someone else owns
    const someoneElses = await generateKeyPairSigner();
    const stranger = await w.h.wallet();
    expectOk(
      await w.h.trySend(
        [createAsset(someoneElses, w.coreCollection, w.authority, stranger.address)],
        w.authority,
      ),
    );
    const notOwned = await takeCoreIx(w, someoneElses.address);
    const r2 = await w.h.trySend([notOwned]);
    expect(r2.customCode).toBe(E.InvalidCollateral);
    expect(ownerOf(w, someoneElses.address)).toBe(stranger.address);
  });

  it("refuses an asset frozen by someone else's delegate with its own code (Core would refuse the transfer too)", async () => {
    const w = await coreWorld();
    const asset = await mintAsset(w);
    const stranger = await w.h.wallet();
    expectOk(
      await w.h.trySend(
        [
          addPlugin(asset, w.coreCollection, w.borrower, {
            type: PLUGIN.FreezeDelegate,
            frozen: false,
            authority: { kind: "Address", address: stranger.address },
          }),
        ],
        w.borrower,
      ),
    );
    expectOk(
      await w.h.trySend(
        [updatePlugin(asset, w.coreCollection, stranger, { type: PLUGIN.FreezeDelegate, frozen: true })],
        stranger,
      ),
    );
    // Core refuses the owner's own transfer of a frozen asset
    const friend = await w.h.wallet();
    expect(
      (await w.h.trySend([transfer(asset, w.coreCollection, w.borrower, friend.address)], w.borrower)).ok,
    ).toBe(false);
    await expectRefused(w, await takeCoreIx(w, asset), asset, E.CollateralFrozen);
    // once the delegate thaws it, the loan is taken and the delegate's power is gone (reset to the owner)
    expectOk(
      await w.h.trySend(
        [updatePlugin(asset, w.coreCollection, stranger, { type: PLUGIN.FreezeDelegate, frozen: false })],
        stranger,
      ),
    );
    const ix = await takeCoreIx(w, asset);
    expectOk(await w.h.trySend([ix]));
    const refreeze = await w.h.trySend(
      [updatePlugin(asset, w.coreCollection, stranger, { type: PLUGIN.FreezeDelegate, frozen: true })],
      stranger,
    );
    expect(refreeze.ok).toBe(false);
    expect(ownerOf(w, asset)).toBe(ix.loan);
    w.h.advance(DAY);
    expectOk(await w.h.trySend([await repayCoreIx(w, ix.loan, asset)], w.borrower));
    expect(ownerOf(w, asset)).toBe(w.borrower.address);
  });

  it("an asset delegated to someone else: the delegate loses its power at TakeLoan and cannot move or revoke during the loan", async () => {
    const w = await coreWorld();
    const asset = await mintAsset(w);
    const delegate = await w.h.wallet();
    expectOk(
      await w.h.trySend(
        [
          addPlugin(asset, w.coreCollection, w.borrower, { type: PLUGIN.TransferDelegate }),
          approvePlugin(asset, w.coreCollection, w.borrower, PLUGIN.TransferDelegate, delegate.address),
        ],
        w.borrower,
      ),
    );
    const ix = await takeCoreIx(w, asset);
    expectOk(await w.h.trySend([ix]));
    expect(
      (await w.h.trySend([transfer(asset, w.coreCollection, delegate, delegate.address)], delegate)).ok,
    ).toBe(false);
    expect(
      (
        await w.h.trySend(
          [revokePlugin(asset, w.coreCollection, w.borrower, PLUGIN.TransferDelegate)],
          w.borrower,
        )
      ).ok,
    ).toBe(false);
    expect(ownerOf(w, asset)).toBe(ix.loan);
    w.h.advance(30n * DAY);
    const liquidator = await w.h.wallet();
    expectOk(await w.h.trySend([await liquidateCoreIx(w, liquidator, ix.loan, asset)], liquidator));
    expect(ownerOf(w, asset)).toBe(w.lender.address);
  });

  it("refuses permanent delegates with an authority (collection or asset) and a transfer oracle; accepts a permanent delegate with none", async () => {
    const w = await coreWorld();
    const cases: [string, Plugin[] | undefined, Plugin[] | undefined, number | null][] = [
      [
        "collection PermanentTransferDelegate",
        [{ type: PLUGIN.PermanentTransferDelegate, authority: { kind: "UpdateAuthority" } }],
        undefined,
        E.UnsafeCollateral,
      ],
      [
        "collection PermanentFreezeDelegate (not frozen)",
        [{ type: PLUGIN.PermanentFreezeDelegate, frozen: false, authority: { kind: "UpdateAuthority" } }],
        undefined,
        E.UnsafeCollateral,
      ],
      [
        "asset PermanentBurnDelegate",
        undefined,
        [
          {
            type: PLUGIN.PermanentBurnDelegate,
            authority: { kind: "Address", address: w.authority.address },
          },
        ],
        E.UnsafeCollateral,
      ],
      [
        "asset PermanentTransferDelegate held by no one",
        undefined,
        [{ type: PLUGIN.PermanentTransferDelegate, authority: { kind: "None" } }],
        null,
      ],
    ];
    for (const [what, collectionPlugins, assetPlugins, code] of cases) {
      const collection = collectionPlugins
        ? await newCollection(w, w.authority, collectionPlugins)
        : w.coreCollection;
      const pool = collectionPlugins
        ? await createPool(w.h, w.lender, w.currency, "nft-pool", poolSeed++, poolParams(collection))
        : w.corePool;
      const asset = await mintAsset(w, collection, assetPlugins);
      const ix = await takeCoreIx(w, asset, collection, pool);
      if (code === null) {
        expectOk(await w.h.trySend([ix]));
        expect(ownerOf(w, asset), what).toBe(ix.loan);
      } else {
        const out = await w.h.trySend([ix]);
        expect(out.customCode, what).toBe(code);
        expect(ownerOf(w, asset), what).toBe(w.borrower.address);
      }
    }
    // an oracle that may reject transfers, added to the collection by its update authority
    const hooked = await newCollection(w, w.authority);
    expectOk(await w.h.trySend([addTransferOracle(hooked, w.authority, w.authority.address)], w.authority));
    const hookedPool = await createPool(
      w.h,
      w.lender,
      w.currency,
      "nft-pool",
      poolSeed++,
      poolParams(hooked),
    );
    const asset = await mintAsset(w, hooked);
    await expectRefused(w, await takeCoreIx(w, asset, hooked, hookedPool), asset, E.UnsafeCollateral);
  });

  it("repay and liquidate after the collection's update authority changed", async () => {
    const w = await coreWorld();
    const repaid = await openLoan(w);
    const defaulted = await openLoan(w);
    const successor = await w.h.wallet();
    expectOk(
      await w.h.trySend(
        [changeCollectionAuthority(w.coreCollection, w.authority, successor.address)],
        w.authority,
      ),
    );
    await repayOneLiquidateOther(w, repaid, defaulted);
  });

  it("a donation of lamports or tokens to the loan PDA or the asset blocks no ending", async () => {
    const w = await coreWorld();
    const donate = async (loan: Address, asset: Address) => {
      w.h.svm.airdrop(loan, lamports(1_000_000n));
      w.h.svm.airdrop(asset, lamports(1_000_000n));
      await fundedTokenAccount(w.h, w.currency, loan, 5n); // a token account of the loan PDA, holding tokens
    };
    const repaid = await openLoan(w);
    const defaulted = await openLoan(w);
    await donate(repaid.loan, repaid.asset);
    await donate(defaulted.loan, defaulted.asset);
    await repayOneLiquidateOther(w, repaid, defaulted);
  });

  it("extend and refinance: the asset passes from the old loan PDA to the new one, never to the borrower; then it ends as any loan", async () => {
    const w = await coreWorld();
    const { loan, asset } = await openLoan(w);
    w.h.advance(DAY);
    const extend = await moveCoreIx(w, loan, asset);
    const extended = expectOk(await w.h.trySend([extend], w.borrower));
    console.log(`Core extend transaction: ${extended.computeUnits} CU`);
    expect(loanOf(w, loan).status).toBe("Repaid");
    expect(w.h.data(loan)[384]).toBe(2); // closedBy Extended
    expect(w.h.data(extend.loan)[7]).toBe(2);
    expect(loanOf(w, extend.loan).escrow).toBe(asset);
    expect(ownerOf(w, asset)).toBe(extend.loan);

    // to another lender's pool listing the collection
    const other = await otherLenderPool(w, w.coreCollection);
    w.h.advance(DAY);
    const refinance = await moveCoreIx(w, extend.loan, asset, other);
    const refinanced = expectOk(await w.h.trySend([refinance], w.borrower));
    console.log(`Core refinance transaction: ${refinanced.computeUnits} CU`);
    expect(w.h.data(extend.loan)[384]).toBe(3); // closedBy Refinanced
    expect(loanOf(w, refinance.loan).pool).toBe(other.pool);
    expect(ownerOf(w, asset)).toBe(refinance.loan);
    // the old loan can no longer end
    await w.h.expectCode([await repayCoreIx(w, extend.loan, asset)], E.LoanNotOngoing, w.borrower);

    w.h.advance(30n * DAY);
    const liquidator = await w.h.wallet();
    const liq = await liquidateCoreIx(w, liquidator, refinance.loan, asset, w.coreCollection, {
      pool: other.pool,
      bank: other.bank,
      owner: other.lender.address,
    });
    expectOk(await w.h.trySend([liq], liquidator));
    expect(ownerOf(w, asset)).toBe(other.lender.address);
  });

  it("refuses a Core move given another asset, another program as Core, or without the Core accounts; a Repay naming another program as Core", async () => {
    const w = await coreWorld();
    const { loan, asset } = await openLoan(w);
    const decoy = await mintAsset(w);
    const good = await moveCoreIx(w, loan, asset);
    const swap = (i: number, a: Address) => {
      const accounts = [...(good.accounts ?? [])];
      accounts[i] = i === 15 ? ro(a) : wr(a);
      return { ...good, accounts };
    };
    await w.h.expectCode([swap(9, decoy)], E.AccountMismatch, w.borrower);
    await w.h.expectCode([swap(15, w.program)], E.InvalidProgramAccount, w.borrower);
    await w.h.expectCode(
      [{ ...good, accounts: (good.accounts ?? []).slice(0, 14) }],
      E.NotEnoughAccounts,
      w.borrower,
    );
    const repay = await repayCoreIx(w, loan, asset);
    const bad = [...(repay.accounts ?? [])];
    bad[11] = ro(w.program);
    await w.h.expectCode([{ ...repay, accounts: bad }], E.InvalidProgramAccount, w.borrower);
    expect(ownerOf(w, asset)).toBe(loan);
    expect(ownerOf(w, decoy)).toBe(w.borrower.address);
  });
});
