/**
 * A program upgrade through the BPF Upgradeable Loader: version 1.7 (layout v1, the build kept in
 * test/fixtures) is deployed and used, then upgraded in place to this build (layout v2); Migrate brings the
 * pools and their loans up with nothing lost, and the upgraded program refuses v1 accounts until then.
 */
import {
  decodeLoanAccount,
  decodePoolAccount,
  getMigrateInstruction,
  LENDING_ERROR_CODE,
  MAX_MIGRATE_LOANS,
} from "@cistern/sdk";
import type { Address } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { tokenBalance } from "./support/tokens.ts";
import { migrateIx, upgradeToCurrent, worldOnV17 } from "./support/upgrade-world.ts";
import { bankOf, DAY, loanOf, nftLoanIx, ONE, repayIx, withFreshNft } from "./support/world.ts";

const E = LENDING_ERROR_CODE;
/** Bytes of the accounts a migration must keep, and what it adds. */
const V1 = { pool: 768, loan: 384 };
const V2 = { pool: 800, loan: 424 };

describe("program upgrade 1.7 -> 1.8 and Migrate", () => {
  it("keeps every byte of the v1 accounts, adds the v2 fields, and lets the loans carry on", async () => {
    const { w, program, loans } = await worldOnV17();
    const before = {
      nftPool: w.h.data(w.nftPool),
      defiPool: w.h.data(w.defiPool),
      ongoingNft: w.h.data(loans.ongoingNft),
      repaid: w.h.data(loans.repaid),
      ongoingToken: w.h.data(loans.ongoingToken),
      bank: w.h.data(w.bank),
      vault: tokenBalance(w.h, w.vault),
    };
    expect([before.nftPool.length, before.ongoingNft.length]).toEqual([V1.pool, V1.loan]);

    await upgradeToCurrent(w, program);
    // the upgraded program refuses v1 accounts until they are migrated, with its own code
    await w.h.expectCode([await repayIx(w, loans.ongoingNft)], E.AccountNeedsMigration);
    // the readers already see v1 accounts, flagged
    expect(decodePoolAccount(w.h.data(w.nftPool)).layoutVersion).toBe(1);
    expect(decodeLoanAccount(w.h.data(loans.repaid))).toMatchObject({ layoutVersion: 1, closedBy: null });

    // anyone may migrate (here a stranger pays the rent of the added bytes)
    const stranger = await w.h.wallet();
    const strangerBefore = w.h.lamports(stranger.address);
    await w.h.send([await migrateIx(w, stranger, w.nftPool, [loans.ongoingNft])], stranger);
    await w.h.send([await migrateIx(w, stranger, w.defiPool, [loans.repaid, loans.ongoingToken])], stranger);
    const rentPaid = strangerBefore - w.h.lamports(stranger.address);
    expect(rentPaid).toBeGreaterThan(0n);

    // nothing lost: the v1 bytes are kept (bar the version byte), the v2 bytes added
    const after = (address: Address) => w.h.data(address);
    for (const [address, old, size] of [
      [w.nftPool, before.nftPool, V2.pool],
      [w.defiPool, before.defiPool, V2.pool],
      [loans.ongoingNft, before.ongoingNft, V2.loan],
      [loans.repaid, before.repaid, V2.loan],
      [loans.ongoingToken, before.ongoingToken, V2.loan],
    ] as const) {
      const now = after(address);
      expect(now.length).toBe(size);
      expect(now[1]).toBe(2);
      expect([...now.subarray(2, old.length)]).toEqual([...old.subarray(2)]);
      expect(w.h.lamports(address)).toBeGreaterThanOrEqual(
        w.h.svm.minimumBalanceForRentExemption(BigInt(size)),
      );
    }
    expect([...w.h.data(w.bank)]).toEqual([...before.bank]);
    expect(tokenBalance(w.h, w.vault)).toBe(before.vault);
    const nftPool = decodePoolAccount(after(w.nftPool));
    expect(nftPool.layoutVersion).toBe(2);
    expect(nftPool.migratedAt).toBe(w.h.now);
    expect(loanOf(w, loans.repaid)).toMatchObject({ layoutVersion: 2, closedBy: "Repaid", status: "Repaid" });
    expect(loanOf(w, loans.ongoingNft)).toMatchObject({ closedBy: "Open", status: "Ongoing" });

    // the migrated loan is repaid under the new program, and a new loan is written at v2
    w.h.advance(DAY, 10n);
    await w.h.send([await repayIx(w, loans.ongoingNft)]);
    expect(loanOf(w, loans.ongoingNft)).toMatchObject({ status: "Repaid", closedBy: "Repaid" });
    const w2 = await withFreshNft(w);
    const fresh = await nftLoanIx(w2);
    await w.h.send([fresh]);
    expect(w.h.data(fresh.loan).length).toBe(V2.loan);
    expect(loanOf(w, fresh.loan)).toMatchObject({
      layoutVersion: 2,
      closedBy: "Open",
      principal: 100n * ONE,
    });
    expect(bankOf(w).ongoingLoans).toBe(2n);
  });

  it("refuses a loan of another pool, a repeat, a missing payer signature and more loans than fit", async () => {
    const { w, program, loans } = await worldOnV17();
    await upgradeToCurrent(w, program);
    const payer = await w.h.wallet();
    // a loan of the defi-pool listed under the nft-pool: nothing is written
    const nftPoolBefore = w.h.data(w.nftPool);
    await w.h.expectCode([await migrateIx(w, payer, w.nftPool, [loans.repaid])], E.AccountMismatch, payer);
    expect([...w.h.data(w.nftPool)]).toEqual([...nftPoolBefore]);
    expect(w.h.data(loans.repaid).length).toBe(V1.loan);
    // a pool is not a loan, a loan is not a pool
    await w.h.expectCode([await migrateIx(w, payer, loans.repaid, [])], E.InvalidDiscriminator, payer);
    await w.h.send([await migrateIx(w, payer, w.defiPool, [loans.repaid, loans.ongoingToken])], payer);
    // everything given already current
    await w.h.expectCode(
      [await migrateIx(w, payer, w.defiPool, [loans.repaid, loans.ongoingToken])],
      E.NothingToMigrate,
      payer,
    );
    // the payer must sign
    const ix = await migrateIx(w, payer, w.nftPool, [loans.ongoingNft]);
    const unsigned = {
      ...ix,
      accounts: (ix.accounts ?? []).map((a, i) => (i === 0 ? { address: a.address, role: 1 } : a)),
    };
    await w.h.expectCode([unsigned], E.MissingSigner);
    expect(() =>
      getMigrateInstruction({
        programAddress: w.program,
        payer,
        pool: w.nftPool,
        loans: Array(MAX_MIGRATE_LOANS + 1).fill(loans.ongoingNft),
      }),
    ).toThrow(/at most 29 loans/);
  });
});
