/**
 * The rule-book (`evaluateLoanOffer` in @cistern/protocol) against the program: random pools, banks,
 * attestations and loan terms go through both; the program accepts exactly what the rule-book accepts,
 * refuses with the rule-book's code otherwise, and records the interest the rule-book quoted.
 */
import { computeOfferLimits, evaluateLoanOffer, type OfferInput } from "@cistern/protocol";
import { getUpdateConfigInstruction, getUpdatePoolInstruction, type PoolParams } from "@cistern/sdk";
import { generateKeyPairSigner } from "@solana/kit";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createNft } from "./support/tokens.ts";
import {
  attestation,
  bankOf,
  buildWorld,
  DAY,
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

const caseArb = fc.record({
  nft: fc.boolean(),
  frozen: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  paused: fc.integer({ min: 0, max: 19 }).map((n) => n === 0),
  aprBps: fc.integer({ min: 1, max: 100_000 }),
  aprMismatch: fc.integer({ min: 0, max: 19 }).map((n) => n === 0),
  maxDurationDays: fc.integer({ min: 1, max: 60 }),
  /** null: a duration within the pool's range (at `durationPermille` of it); else this many seconds. */
  durationSeconds: fc.oneof(
    { weight: 3, arbitrary: fc.constant(null) },
    {
      weight: 1,
      arbitrary: fc.oneof(fc.bigInt({ min: 1n, max: 62n * DAY }), fc.constantFrom(DAY - 1n, DAY)),
    },
  ),
  durationPermille: fc.integer({ min: 0, max: 1000 }),
  minUsd: fc.bigInt({ min: 0n, max: 300n }),
  usdSpan: fc.bigInt({ min: 0n, max: 5_000n }),
  ltvBps: fc.integer({ min: 1, max: 10_000 }),
  exposureBps: fc.integer({ min: 1, max: 10_000 }),
  foreignCollection: fc.integer({ min: 0, max: 19 }).map((n) => n === 0),
  conditions: fc.oneof(
    { weight: 3, arbitrary: fc.constant(null) },
    {
      weight: 1,
      arbitrary: fc.record({
        minAgeDays: fc.bigInt({ min: 0n, max: 400n }),
        minLoans: fc.bigInt({ min: 0n, max: 12n }),
        minVolumeUsd: fc.bigInt({ min: 0n, max: 200_000n }),
      }),
    },
  ),
  facts: fc.record({
    ageDays: fc.bigInt({ min: 0n, max: 400n }),
    pastLoans: fc.bigInt({ min: 0n, max: 12n }),
    volumeUsd: fc.bigInt({ min: 0n, max: 200_000n }),
  }),
  collateralValue: fc.bigInt({ min: 0n, max: 4_000n * ONE }),
  priceMicroUsd: fc.bigInt({ min: 1n, max: 5n * USD_PRICE }),
  /** null: a principal between the rule-book's least and most (at `principalPermille`); else this one. */
  principal: fc.oneof(
    { weight: 2, arbitrary: fc.constant(null) },
    {
      weight: 1,
      arbitrary: fc.oneof(fc.bigInt({ min: 1n, max: 3_000n * ONE }), fc.bigInt({ min: 1n, max: 1_000n })),
    },
  ),
  principalPermille: fc.integer({ min: 0, max: 1000 }),
});

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

/** A principal between the least and the most the rule-book's limits allow (1 when nothing fits). */
function pickPrincipal(input: OfferInput, permille: number): bigint {
  const entry = input.pool.collections.find((e) => e.id === input.collateralId);
  if (entry === undefined) return 1n;
  const { minAmount, maxAmount } = computeOfferLimits(input, entry);
  if (minAmount === null || maxAmount < minAmount) return maxAmount > 0n ? maxAmount : 1n;
  return minAmount + ((maxAmount - minAmount) * BigInt(permille)) / 1000n;
}

describe("the rule-book decides exactly what the program accepts", () => {
  let w: World;
  beforeAll(async () => {
    w = await buildWorld();
  });

  async function setPool(c: Case, pool: string, id: string): Promise<PoolParams> {
    const minAmountMicroUsd = c.minUsd * USD_PRICE;
    const params = poolParams(id as never, {
      loanAprBps: c.aprBps,
      maxDurationSeconds: BigInt(c.maxDurationDays) * DAY,
      minAmountMicroUsd,
      maxAmountMicroUsd: minAmountMicroUsd + c.usdSpan * USD_PRICE + 1n,
      conditions: {
        isEnabled: c.conditions !== null,
        whitelistEnabled: false,
        liquidationThresholdBps: 0,
        minAgeSeconds: (c.conditions?.minAgeDays ?? 0n) * DAY,
        minLoanCount: c.conditions?.minLoans ?? 0n,
        minVolumeMicroUsd: (c.conditions?.minVolumeUsd ?? 0n) * USD_PRICE,
        whitelist: null,
      },
    });
    params.collections = [{ ...params.collections[0]!, ltvBps: c.ltvBps, exposureBps: c.exposureBps }];
    await w.h.send([
      getUpdatePoolInstruction({
        programAddress: w.program,
        owner: w.lender,
        pool: pool as never,
        poolType: c.nft ? "nft-pool" : "defi-pool",
        status: c.frozen ? "Frozen" : "Open",
        params,
      }),
    ]);
    return params;
  }

  it("over random pools, banks, attestations and terms", async () => {
    let accepted = 0;
    const refused = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const pool = c.nft ? w.nftPool : w.defiPool;
        await setPool(c, pool, c.nft ? w.collection : w.collateralMint);
        // an NFT of another verified collection, attested as such: not one of the pool's
        const foreign = c.nft && c.foreignCollection ? (await generateKeyPairSigner()).address : null;
        const collateralId = foreign ?? (c.nft ? w.collection : w.collateralMint);
        await w.h.send([
          await getUpdateConfigInstruction({ programAddress: w.program, admin: w.admin, paused: c.paused }),
        ]);
        const facts = {
          walletAgeSeconds: c.facts.ageDays * DAY,
          pastLoans: c.facts.pastLoans,
          volumeMicroUsd: c.facts.volumeUsd * USD_PRICE,
        };
        const att = attestation(w, {
          collateralValueBaseUnits: c.collateralValue,
          currencyPriceMicroUsd: c.priceMicroUsd,
          collection: collateralId,
          ...facts,
        });
        const poolAccount = poolOf(w, pool);
        const bank = bankOf(w);
        const expectedAprBps = c.aprMismatch ? c.aprBps + 1 : c.aprBps;
        const input: OfferInput = {
          protocolPaused: c.paused,
          pool: {
            poolType: poolAccount.poolType,
            isOpen: poolAccount.status === "Open",
            loanAprBps: poolAccount.loanAprBps,
            maxDurationSeconds: poolAccount.maxDurationSeconds,
            minAmountMicroUsd: poolAccount.minAmountMicroUsd,
            maxAmountMicroUsd: poolAccount.maxAmountMicroUsd,
            conditions: poolAccount.conditions,
            collections: poolAccount.collections,
          },
          currencyMint: w.currency,
          bank: {
            totalLiquidity: bank.totalLiquidity,
            availableLiquidity: bank.availableLiquidity,
            decimals: 6,
          },
          collateralId,
          collateralValue: c.collateralValue,
          currencyPriceMicroUsd: c.priceMicroUsd,
          borrower: facts,
          isWhitelisted: false,
          durationSeconds:
            c.durationSeconds ??
            DAY + ((poolAccount.maxDurationSeconds - DAY) * BigInt(c.durationPermille)) / 1000n,
          expectedAprBps,
          nowSeconds: w.h.now,
        };
        input.amount = c.principal ?? pickPrincipal(input, c.principalPermille);
        const decision = evaluateLoanOffer(input);
        const terms = {
          principalBaseUnits: input.amount,
          durationSeconds: input.durationSeconds,
          expectedAprBps,
          attestation: att,
        };
        const borrowerWorld = foreign
          ? { ...w, nft: await createNft(w.h, w.borrower.address, foreign) }
          : await withFreshNft(w);
        const ix = c.nft
          ? await nftLoanIx(borrowerWorld, nftTerms(w, terms))
          : await tokenLoanIx(w, 1_000n * ONE, terms);
        const outcome = await w.h.trySend([ix]);
        if (decision.ok) {
          expect(outcome.ok, `program refused ${outcome.customCode} what the rule-book accepts`).toBe(true);
          const loan = loanOf(w, ix.loan);
          expect({ principal: loan.principal, interest: loan.interest }).toEqual({
            principal: decision.offer.amount,
            interest: decision.offer.interest,
          });
          accepted++;
        } else {
          expect(outcome.ok, `program accepted what the rule-book refuses (${decision.refusal.name})`).toBe(
            false,
          );
          expect(outcome.customCode).toBe(decision.refusal.code);
          refused.set(decision.refusal.name, (refused.get(decision.refusal.name) ?? 0) + 1);
        }
      }),
      { seed: 12_2026, numRuns: 250, endOnFailure: true },
    );
    await w.h.send([
      await getUpdateConfigInstruction({ programAddress: w.program, admin: w.admin, paused: false }),
    ]);
    console.log(
      `rule-book differential: ${accepted} accepted, refused ${JSON.stringify(Object.fromEntries(refused))}`,
    );
    // the random cases reach acceptance and the main refusals
    expect(accepted).toBeGreaterThan(10);
    for (const name of [
      "InvalidDuration",
      "BelowMinAmountUsd",
      "LtvExceeded",
      "ProtocolPaused",
      "CollectionNotInPool",
    ])
      expect(refused.get(name) ?? 0, name).toBeGreaterThan(0);
  }, 240_000);
});
