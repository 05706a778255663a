/**
 * Issue #43, finding 2 as a class: every account meant to be the only one of its seeds is created only at its
 * canonical address (the highest bump off the curve), whatever bump the caller's data names: the Config, the
 * Venues, a bank per owner and mint, the bank's position in the local lending venue (the marginfi account:
 * marginfi-bank-state.test.ts). Each attack names the next bump below the canonical one and is refused with
 * InvalidPda, nothing created; the honest instruction goes through. LAYOUT.md "Bumps the program takes from
 * callers" lists the bumps still taken and why each is safe.
 */
import {
  LENDING_ERROR_CODE as E,
  findVaultPda,
  getCreateBankInstruction,
  getInitializeConfigInstruction,
  getSetVenuesInstruction,
  NO_VENUE,
} from "@cistern/sdk";
import { getAccountData, getTokenBalance, readBank } from "@cistern/sdk/testing";
import { describe, expect, it } from "vitest";
import { createDelegationWorld } from "./support/delegation-world.ts";
import { Harness } from "./support/harness.ts";
import { patchData, swapAccount } from "./support/mutate.ts";
import { canonicalAndNext, keyBytes } from "./support/pda.ts";
import { failureCode } from "./support/sale-world.ts";
import { createMint } from "./support/tokens.ts";
import { buildWorld } from "./support/world.ts";

describe("one account per seeds: canonical addresses only", () => {
  it("InitializeConfig: refuses the config at a non-canonical bump; the canonical one is created", async () => {
    const h = await Harness.create();
    const { other } = canonicalAndNext(h.programId, ["config"]);
    const ix = await getInitializeConfigInstruction({
      programAddress: h.programId,
      admin: h.upgradeAuthority,
      oracle: h.payer.address,
      treasury: h.payer.address,
      protocolFeeBps: 2000,
    });
    const attack = patchData(swapAccount(ix, 1, other[0]), (d) => {
      d[1] = other[1];
    });
    await h.expectCode([attack], E.InvalidPda);
    expect(h.exists(other[0])).toBe(false);
    await h.send([ix]);
  });

  it("SetVenues: refuses the venues account at a non-canonical bump; the canonical one is created", async () => {
    const w = await buildWorld();
    const { other } = canonicalAndNext(w.program, ["venues"]);
    const ix = await getSetVenuesInstruction({
      programAddress: w.program,
      admin: w.admin,
      swapProgram: NO_VENUE,
    });
    const attack = patchData(swapAccount(ix, 2, other[0]), (d) => {
      d[1] = other[1];
    });
    await w.h.expectCode([attack], E.InvalidPda);
    expect(w.h.exists(other[0])).toBe(false);
    await w.h.send([ix]);
  });

  it("CreateBank: refuses a second bank of the same owner and mint at a non-canonical bump; the canonical one is created", async () => {
    const w = await buildWorld();
    const owner = await w.h.wallet();
    const mint = await createMint(w.h, 6);
    const { other } = canonicalAndNext(w.program, ["bank", keyBytes(owner.address), keyBytes(mint)]);
    const [otherVault, otherVaultBump] = await findVaultPda(w.program, other[0]);
    const ix = await getCreateBankInstruction({ programAddress: w.program, owner, mint });
    const attack = patchData(swapAccount(swapAccount(ix, 1, other[0]), 2, otherVault), (d) => {
      d[1] = other[1];
      d[2] = otherVaultBump;
    });
    await w.h.expectCode([attack], E.InvalidPda);
    expect(w.h.exists(other[0])).toBe(false);
    expect(w.h.exists(otherVault)).toBe(false);
    await w.h.send([ix]);
  });

  it("Delegate to the local lending venue: refuses opening a second position of the bank at a non-canonical bump, books unchanged", async () => {
    const d = await createDelegationWorld();
    const { w, venue } = d;
    const { canonical, other } = canonicalAndNext(venue.program, [
      "position",
      keyBytes(venue.reserve),
      keyBytes(w.bank),
    ]);
    expect(canonical[0]).toBe(d.position);
    const snapshot = () => ({
      bank: readBank(w),
      vault: getTokenBalance(w.svm, w.vault),
      positions: [getAccountData(w.svm, d.position), getAccountData(w.svm, other[0])],
    });
    let before = snapshot();
    // first use: the canonical address with another bump, and the other address with its own bump
    expect(await failureCode(d.delegate(d.owner, 50_000_000n, { positionBump: other[1] }))).toBe(
      E.InvalidPda,
    );
    expect(
      await failureCode(d.delegate(d.owner, 50_000_000n, { position: other[0], positionBump: other[1] })),
    ).toBe(E.InvalidPda);
    expect(snapshot()).toEqual(before);
    // the honest Delegate opens the canonical position; a second one is still refused afterwards
    await d.delegate(d.owner, 500_000_000n);
    before = snapshot();
    expect(
      await failureCode(d.delegate(d.owner, 50_000_000n, { position: other[0], positionBump: other[1] })),
    ).toBe(E.InvalidPda);
    expect(snapshot()).toEqual(before);
    expect(getAccountData(w.svm, other[0])).toBeNull();
  });
});
