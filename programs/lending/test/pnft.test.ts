// Loans against programmable NFTs (pNFT), escrowless, through the real Token Metadata and Token Auth Rules programs
// (the vendored binaries at their mainnet ids): the pNFT stays in the borrower's token account, delegated to the
// loan PDA and locked for the loan's life; Repay unlocks and revokes; Liquidate transfers it to the pool owner.
import {
  createProgrammableNftV1,
  getAssociatedTokenAddress,
  getTokenRecordAddress,
  type RuleV2,
  transferProgrammableNftV1,
} from "@cistern/localnet";
import { LENDING_ERROR_CODE } from "@cistern/sdk";
import {
  AccountRole,
  type Address,
  address,
  generateKeyPairSigner,
  getAddressDecoder,
  type Instruction,
  type KeyPairSigner,
} from "@solana/kit";
import { describe, expect, it } from "vitest";
import { computeLimit, expectOk, kit } from "./support/kit.ts";
import {
  AUTH_RULES,
  liquidatePnftIx,
  meta,
  mintPnft,
  movePnftIx,
  type Pnft,
  pnftWorld,
  repayPnftIx,
  SYSTEM,
  SYSVAR_INSTRUCTIONS,
  signs,
  TM,
  takePnftIx,
  W,
} from "./support/pnft-world.ts";
import { rentLedger, SIGNATURE_FEE } from "./support/rent-ledger.ts";
import { DAY, loanOf, otherLenderPool, type World } from "./support/world.ts";

const E = LENDING_ERROR_CODE;
const TOKEN = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
const dec = getAddressDecoder();

function tokenAccount(w: World, a: Address) {
  const d = w.h.svm.getAccount(a);
  if (!d.exists) return null;
  const data = d.data;
  return {
    owner: dec.decode(data.subarray(32, 64)),
    amount: new DataView(data.buffer, data.byteOffset).getBigUint64(64, true),
    state: data[108],
  };
}

/** Token record: key, bump, state (0 Unlocked, 1 Locked), rule set revision Option<u64>, delegate Option<Pubkey>. */
function tokenRecord(w: World, a: Address) {
  const d = w.h.svm.getAccount(a);
  if (!d.exists) return null;
  const data = d.data;
  let at = 3;
  at += data[at] === 1 ? 9 : 1;
  const delegate = data[at] === 1 ? dec.decode(data.subarray(at + 1, at + 33)) : null;
  return { state: data[2], delegate };
}

/** Token Metadata Unlock v1 / Revoke v1 (LockedTransfer) / Transfer v1 signed by `who`: what a borrower would try. */
function unlockBy(n: Pnft, who: KeyPairSigner, owner: Address): Instruction {
  return {
    programAddress: TM,
    data: Uint8Array.of(47, 0, 0),
    accounts: [
      signs(who, AccountRole.READONLY_SIGNER),
      meta(owner),
      meta(n.token, W),
      meta(n.mint),
      meta(n.metadata[0], W),
      meta(n.edition[0]),
      meta(n.record[0], W),
      signs(who, AccountRole.WRITABLE_SIGNER),
      meta(SYSTEM),
      meta(SYSVAR_INSTRUCTIONS),
      meta(TOKEN),
      meta(AUTH_RULES),
      meta(n.ruleSet),
    ],
  };
}

function revokeBy(n: Pnft, who: KeyPairSigner, delegate: Address): Instruction {
  return {
    programAddress: TM,
    data: Uint8Array.of(45, 7),
    accounts: [
      meta(TM),
      meta(delegate),
      meta(n.metadata[0], W),
      meta(n.edition[0]),
      meta(n.record[0], W),
      meta(n.mint),
      meta(n.token, W),
      signs(who, AccountRole.READONLY_SIGNER),
      signs(who, AccountRole.WRITABLE_SIGNER),
      meta(SYSTEM),
      meta(SYSVAR_INSTRUCTIONS),
      meta(TOKEN),
      meta(AUTH_RULES),
      meta(n.ruleSet),
    ],
  };
}

/** SPL Token Burn of the borrower's token (Token Metadata keeps it frozen). */
function splBurn(n: Pnft, who: KeyPairSigner): Instruction {
  const data = new Uint8Array(9);
  data[0] = 8;
  data[1] = 1;
  return {
    programAddress: address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"),
    data,
    accounts: [meta(n.token, W), meta(n.mint, W), signs(who, AccountRole.READONLY_SIGNER)],
  };
}

describe("loans against programmable NFTs (real Token Metadata and Token Auth Rules)", {
  timeout: 60_000,
}, () => {
  it("take: the pNFT stays in the borrower's account, delegated to the loan PDA and locked; the borrower can move, unlock, revoke or burn nothing", async () => {
    const w = await pnftWorld();
    const n = await mintPnft(w);
    const ix = await takePnftIx(w, n);
    const out = expectOk(await w.h.trySend([computeLimit(400_000), ix]));
    console.log(`pNFT take-loan transaction: ${out.computeUnits} CU`);
    expect(out.computeUnits).toBeLessThanOrEqual(250_000n);
    const loan = loanOf(w, ix.loan);
    expect(loan.status).toBe("Ongoing");
    expect(w.h.data(ix.loan)[7]).toBe(1); // nftType ProgrammableNft
    expect(loan.escrow).toBe(n.token);
    expect(tokenAccount(w, n.token)).toEqual({ owner: w.borrower.address, amount: 1n, state: 2 });
    expect(tokenRecord(w, n.record[0])).toEqual({ state: 1, delegate: ix.loan });

    const stranger = await w.h.wallet();
    const tries: [string, Instruction[]][] = [
      [
        "transfer",
        [
          kit(
            transferProgrammableNftV1({
              mint: n.mint,
              owner: w.borrower.address,
              destinationOwner: stranger.address,
              ruleSet: n.ruleSet,
            }),
            [w.borrower],
          ),
        ],
      ],
      ["unlock", [unlockBy(n, w.borrower, w.borrower.address)]],
      ["revoke", [revokeBy(n, w.borrower, ix.loan)]],
      ["burn", [splBurn(n, w.borrower)]],
    ];
    for (const [what, ixs] of tries) {
      const r = await w.h.trySend([computeLimit(400_000), ...ixs], w.borrower);
      expect(r.ok, what).toBe(false);
    }
    expect(tokenAccount(w, n.token)).toEqual({ owner: w.borrower.address, amount: 1n, state: 2 });
    expect(tokenRecord(w, n.record[0])).toEqual({ state: 1, delegate: ix.loan });
  });

  it("repay: unlocked and the delegate revoked; the pNFT is the borrower's again", async () => {
    const w = await pnftWorld();
    const n = await mintPnft(w);
    const ix = await takePnftIx(w, n);
    expectOk(await w.h.trySend([computeLimit(400_000), ix]));
    w.h.advance(DAY);
    const repay = await repayPnftIx(w, ix.loan, n);
    const out = expectOk(await w.h.trySend([computeLimit(400_000), repay]));
    console.log(`pNFT repay transaction: ${out.computeUnits} CU`);
    expect(loanOf(w, ix.loan).status).toBe("Repaid");
    expect(tokenAccount(w, n.token)).toMatchObject({ owner: w.borrower.address, amount: 1n });
    expect(tokenRecord(w, n.record[0])).toEqual({ state: 0, delegate: null });
    // it moves freely again
    const friend = await w.h.wallet();
    expectOk(
      await w.h.trySend(
        [
          computeLimit(400_000),
          kit(
            transferProgrammableNftV1({
              mint: n.mint,
              owner: w.borrower.address,
              destinationOwner: friend.address,
              ruleSet: n.ruleSet,
            }),
            [w.borrower],
          ),
        ],
        w.borrower,
      ),
    );
  });

  it("liquidate: unlocked and transferred by the loan PDA to the pool owner, through the rule set", async () => {
    const w = await pnftWorld();
    const n = await mintPnft(w);
    const ix = await takePnftIx(w, n);
    expectOk(await w.h.trySend([computeLimit(400_000), ix]));
    w.h.advance(30n * DAY);
    const liquidator = await w.h.wallet();
    const liq = await liquidatePnftIx(w, liquidator, ix.loan, n);
    const via = address(getAssociatedTokenAddress(ix.loan, n.mint));
    const viaRecord = address(getTokenRecordAddress(n.mint, via));
    const ledger = rentLedger(w.h, liquidator.address, [
      n.record[0],
      via,
      viaRecord,
      liq.dest,
      liq.destRecord,
    ]);
    const out = expectOk(await w.h.trySend([computeLimit(400_000), liq], liquidator));
    console.log(`pNFT liquidate transaction: ${out.computeUnits} CU`);
    expect(loanOf(w, ix.loan).status).toBe("Liquidated");
    expect(tokenAccount(w, liq.dest)).toMatchObject({ owner: w.lender.address, amount: 1n });
    expect(tokenAccount(w, n.token)).toMatchObject({ amount: 0n });
    expect(tokenRecord(w, liq.destRecord)).toEqual({ state: 0, delegate: null });
    // the loan PDA's associated token account the pNFT passed through (and its token record) are closed: the
    // liquidator, who paid them, paid only the fee and the pool owner's new account and record (issue #43). (Token
    // Metadata's delegate transfer closes the borrower's token record itself, its rent to the transfer's payer.)
    expect(ledger.open()).toEqual([liq.dest, liq.destRecord]);
    expect(ledger.payerDelta()).toBe(ledger.released() - SIGNATURE_FEE);
  });

  it("extend and refinance: the delegate and lock pass from the old loan PDA to the new one (the rule set asked again); then it ends as any loan", async () => {
    const w = await pnftWorld();
    const n = await mintPnft(w);
    const take = await takePnftIx(w, n);
    expectOk(await w.h.trySend([computeLimit(400_000), take]));
    w.h.advance(DAY);
    const extend = await movePnftIx(w, n, take.loan);
    const extended = expectOk(await w.h.trySend([computeLimit(600_000), extend]));
    console.log(`pNFT extend transaction: ${extended.computeUnits} CU`);
    expect(loanOf(w, take.loan).status).toBe("Repaid");
    expect(w.h.data(take.loan)[384]).toBe(2); // closedBy Extended
    expect(w.h.data(extend.loan)[7]).toBe(1);
    expect([...w.h.data(extend.loan).subarray(385, 388)]).toEqual([n.metadata[1], n.edition[1], n.record[1]]);
    expect(tokenRecord(w, n.record[0])).toEqual({ state: 1, delegate: extend.loan });
    expect(tokenAccount(w, n.token)).toEqual({ owner: w.borrower.address, amount: 1n, state: 2 });

    const other = await otherLenderPool(w, w.pnftCollection);
    w.h.advance(DAY);
    const refinance = await movePnftIx(w, n, extend.loan, other);
    const refinanced = expectOk(await w.h.trySend([computeLimit(600_000), refinance]));
    console.log(`pNFT refinance transaction: ${refinanced.computeUnits} CU`);
    expect(w.h.data(extend.loan)[384]).toBe(3); // closedBy Refinanced
    expect(tokenRecord(w, n.record[0])).toEqual({ state: 1, delegate: refinance.loan });

    w.h.advance(30n * DAY);
    const liquidator = await w.h.wallet();
    const liq = await liquidatePnftIx(w, liquidator, refinance.loan, n, {
      pool: other.pool,
      bank: other.bank,
      owner: other.lender.address,
    });
    expectOk(await w.h.trySend([computeLimit(400_000), liq], liquidator));
    expect(tokenAccount(w, liq.dest)).toMatchObject({ owner: other.lender.address, amount: 1n });
  });

  it("refuses at TakeLoan a rule set that allows the loan's delegate but forbids a transfer Liquidate needs (nothing created); accepts the demo rule set", async () => {
    // the delegate is allowed (the demo's Delegate rules), the delegate's transfer to the loan PDA is not: a
    // transfer may only reach a wallet
    const noPrograms: RuleV2 = { type: "ProgramOwnedList", field: "Destination", programs: [SYSTEM] };
    const firstHop = await pnftWorld(undefined, () => ({ "Transfer:TransferDelegate": noPrograms }));
    // ...or the delegate's transfer is allowed and the loan PDA's own transfer to the pool owner is not: only an
    // account of the lending program may receive
    const secondHop = await pnftWorld(undefined, (program) => ({
      "Transfer:Owner": { type: "ProgramOwnedList", field: "Destination", programs: [program] },
    }));
    for (const [what, w] of [
      ["delegate's transfer refused", firstHop],
      ["owner's transfer refused", secondHop],
    ] as const) {
      const n = await mintPnft(w);
      const ix = await takePnftIx(w, n);
      const out = await w.h.trySend([computeLimit(400_000), ix]);
      expect(out.ok, what).toBe(false);
      // refused by Token Auth Rules' Validate, which the lending program invoked after the Delegate and Lock
      const logs = out.logs.join("\n");
      expect(logs, what).toMatch(
        /IX: Lock[\s\S]*Instruction: Validate[\s\S]*auth9SigNpDKz4sJJ1DfCTuZrZNSAgh9sFD3rboVmgg failed/,
      );
      expect(out.customCode, what).toBeLessThan(6000); // Token Auth Rules' own code (a failed CPI ends the transaction)
      expect(w.h.svm.getAccount(ix.loan).exists, what).toBe(false);
      expect(tokenRecord(w, n.record[0]), what).toEqual({ state: 0, delegate: null });
      expect(tokenAccount(w, n.token)?.amount, what).toBe(1n);
    }
    // the demo rule set: the loan is taken within the budget
    const w = await pnftWorld();
    const n = await mintPnft(w);
    const out = expectOk(await w.h.trySend([computeLimit(400_000), await takePnftIx(w, n)]));
    expect(out.computeUnits).toBeLessThanOrEqual(250_000n);
  });

  it("refuses: a rule set that forbids the loan's delegate, an asset outside the pool's collections, an asset already locked by another loan", async () => {
    // the rule set lets no program hold a delegate: a clean refusal at TakeLoan, nothing created
    const strict = await pnftWorld([SYSTEM]);
    const a = await mintPnft(strict);
    const refused = await takePnftIx(strict, a);
    const r1 = await strict.h.trySend([computeLimit(400_000), refused]);
    expect(r1.ok).toBe(false);
    expect(strict.h.svm.getAccount(refused.loan).exists).toBe(false);
    expect(tokenRecord(strict, a.record[0])).toEqual({ state: 0, delegate: null });

    const w = await pnftWorld();
    // another pNFT collection (verified), not listed by the pool
    const other = await generateKeyPairSigner();
    expectOk(
      await w.h.trySend(
        [
          computeLimit(1_400_000),
          kit(
            createProgrammableNftV1({
              mint: other.address,
              authority: w.authority.address,
              ruleSet: w.ruleSet,
              data: {
                name: "Look-alike",
                symbol: "LOOK",
                uri: "https://example.invalid/l.json",
                sellerFeeBasisPoints: 0,
                creators: [{ address: w.authority.address, verified: true, share: 100 }],
                collection: null,
                collectionSize: 0n,
              },
            }),
            [w.authority, other],
          ),
        ],
        w.authority,
      ),
    );
    const outsider = await mintPnft(w, other.address);
    const r2 = await w.h.trySend([computeLimit(400_000), await takePnftIx(w, outsider, w.pnftPool)]);
    expect(r2.customCode).toBe(E.CollectionNotInPool);

    // the same pNFT pledged twice: the second loan meets the first loan's delegate and lock
    const n = await mintPnft(w);
    const first = await takePnftIx(w, n);
    expectOk(await w.h.trySend([computeLimit(400_000), first]));
    const second = await takePnftIx(w, n);
    const r3 = await w.h.trySend([computeLimit(400_000), second]);
    expect(r3.ok).toBe(false);
    expect(w.h.svm.getAccount(second.loan).exists).toBe(false);
    expect(tokenRecord(w, n.record[0])).toEqual({ state: 1, delegate: first.loan });
  });
});
