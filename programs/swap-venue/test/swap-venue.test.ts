import {
  decodeSwapPool,
  SWAP_VENUE_ERRORS as E,
  findSwapPoolPda,
  getAddSwapLiquidityInstruction,
  getInitializeSwapPoolInstruction,
  getSwapInstruction,
  quoteSwapExactIn,
  type SwapPoolAccount,
  sortSwapMints,
} from "@cistern/sdk";
import { type Address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { VenueHarness } from "./venue-harness.ts";

const FEE_BPS = 30;
/** Seeded reserves: 1,000,000 of mint a (6 decimals) against 5,000 of mint b (9 decimals). */
const RESERVE_A = 1_000_000_000_000n;
const RESERVE_B = 5_000_000_000_000n;

interface World {
  h: VenueHarness;
  pool: SwapPoolAccount & { address: Address };
  trader: KeyPairSigner;
  traderA: Address;
  traderB: Address;
}

async function createWorld(): Promise<World> {
  const h = await VenueHarness.create();
  const [x, y] = [await h.createMint(6), await h.createMint(9)];
  const init = await getInitializeSwapPoolInstruction({
    programAddress: h.programId,
    payer: h.payer,
    mintX: x,
    mintY: y,
    feeBps: FEE_BPS,
  });
  await h.send([init]);
  const pool = { ...decodeSwapPool(h.data(init.pool)), address: init.pool };
  const [seedA, seedB] = [
    await h.tokenAccount(pool.mintA, h.payer.address, RESERVE_A),
    await h.tokenAccount(pool.mintB, h.payer.address, RESERVE_B),
  ];
  await h.send([
    await getAddSwapLiquidityInstruction({
      programAddress: h.programId,
      depositor: h.payer,
      pool,
      depositorTokenA: seedA,
      depositorTokenB: seedB,
      amountA: RESERVE_A,
      amountB: RESERVE_B,
    }),
  ]);
  const trader = await h.wallet();
  const traderA = await h.tokenAccount(pool.mintA, trader.address, 10n ** 15n);
  const traderB = await h.tokenAccount(pool.mintB, trader.address, 10n ** 15n);
  return { h, pool, trader, traderA, traderB };
}

function swapAToB(
  w: World,
  amountIn: bigint,
  minAmountOut: bigint,
  overrides: Partial<Parameters<typeof getSwapInstruction>[0]> = {},
) {
  return getSwapInstruction({
    programAddress: w.h.programId,
    user: w.trader,
    source: w.traderA,
    destination: w.traderB,
    pool: w.pool.address,
    vaultIn: w.pool.vaultA,
    vaultOut: w.pool.vaultB,
    amountIn,
    minAmountOut,
    ...overrides,
  });
}

describe("local swap venue: constant-product AMM", () => {
  let w: World;
  beforeAll(async () => {
    w = await createWorld();
  });

  it("creates the pool at its PDA with the mints in byte order and two vaults it owns", async () => {
    const [a, b] = sortSwapMints(w.pool.mintB, w.pool.mintA);
    expect([a, b]).toEqual([w.pool.mintA, w.pool.mintB]);
    expect((await findSwapPoolPda(w.h.programId, b, a))[0]).toBe(w.pool.address);
    expect(w.pool.feeBps).toBe(FEE_BPS);
    expect([w.h.balance(w.pool.vaultA), w.h.balance(w.pool.vaultB)]).toEqual([RESERVE_A, RESERVE_B]);
    // the vaults' token authority is the pool
    const owner = (v: Address) => w.h.data(v).slice(32, 64);
    const poolBytes = w.h.data(w.pool.vaultA).slice(32, 64);
    expect(owner(w.pool.vaultB)).toEqual(poolBytes);
  });

  it("pays exactly the quote in both directions, the fee stays in the pool and k never decreases", async () => {
    await fc.assert(
      fc.asyncProperty(fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.boolean(), async (amountIn, aToB) => {
        const [reserveA, reserveB] = [w.h.balance(w.pool.vaultA), w.h.balance(w.pool.vaultB)];
        const [reserveIn, reserveOut] = aToB ? [reserveA, reserveB] : [reserveB, reserveA];
        const quote = quoteSwapExactIn(reserveIn, reserveOut, amountIn, FEE_BPS);
        const ix = aToB
          ? swapAToB(w, amountIn, quote.amountOut)
          : swapAToB(w, amountIn, quote.amountOut, {
              source: w.traderB,
              destination: w.traderA,
              vaultIn: w.pool.vaultB,
              vaultOut: w.pool.vaultA,
            });
        const out = await w.h.trySend([ix], w.trader);
        if (quote.amountOut === 0n) {
          expect(out.customCode).toBe(E.ZeroAmount);
          return;
        }
        expect(out.ok, out.logs.join("\n")).toBe(true);
        const [afterA, afterB] = [w.h.balance(w.pool.vaultA), w.h.balance(w.pool.vaultB)];
        const [inAfter, outAfter] = aToB ? [afterA, afterB] : [afterB, afterA];
        expect(inAfter).toBe(reserveIn + amountIn); // the whole input, fee included, stays in the pool
        expect(outAfter).toBe(reserveOut - quote.amountOut);
        expect(afterA * afterB).toBeGreaterThanOrEqual(reserveA * reserveB);
      }),
      { numRuns: 60 },
    );
  });

  it("refuses an output below the minimum (slippage) and moves nothing", async () => {
    const [reserveA, reserveB] = [w.h.balance(w.pool.vaultA), w.h.balance(w.pool.vaultB)];
    const quote = quoteSwapExactIn(reserveA, reserveB, 1_000_000_000n, FEE_BPS);
    const before = w.h.balance(w.traderA);
    const out = await w.h.trySend([swapAToB(w, 1_000_000_000n, quote.amountOut + 1n)], w.trader);
    expect(out.customCode).toBe(E.SlippageExceeded);
    expect([w.h.balance(w.pool.vaultA), w.h.balance(w.traderA)]).toEqual([reserveA, before]);
    const ok = await w.h.trySend([swapAToB(w, 1_000_000_000n, quote.amountOut)], w.trader);
    expect(ok.ok).toBe(true);
    console.log(`swap-venue Swap: ${ok.computeUnits} CU`);
  });

  it("refuses bad accounts with the named error and moves nothing", async () => {
    const other = await createWorld();
    const stranger = await generateKeyPairSigner();
    const foreignVault = await w.h.tokenAccount(w.pool.mintB, stranger.address, 10n ** 9n);
    const fakePool = await w.h.tokenAccount(w.pool.mintA, stranger.address);
    const cases: [string, ReturnType<typeof swapAToB>, number][] = [
      ["a vault not of this pool", swapAToB(w, 1_000n, 0n, { vaultOut: foreignVault }), E.InvalidVault],
      ["the same vault twice", swapAToB(w, 1_000n, 0n, { vaultOut: w.pool.vaultA }), E.InvalidVault],
      [
        "an account not owned by the venue as pool",
        swapAToB(w, 1_000n, 0n, { pool: fakePool }),
        E.InvalidOwner,
      ],
      [
        "another pool's vaults",
        swapAToB(w, 1_000n, 0n, { vaultIn: other.pool.vaultA, vaultOut: other.pool.vaultB }),
        E.InvalidVault,
      ],
      ["a destination of the wrong mint", swapAToB(w, 1_000n, 0n, { destination: w.traderA }), E.InvalidMint],
      ["zero input", swapAToB(w, 0n, 0n), E.ZeroAmount],
    ];
    const vaults = () => [w.h.balance(w.pool.vaultA), w.h.balance(w.pool.vaultB), w.h.balance(w.traderA)];
    const before = vaults();
    for (const [what, ix, code] of cases) {
      const out = await w.h.trySend([ix], w.trader);
      expect(out.customCode, what).toBe(code);
    }
    expect(vaults()).toEqual(before);
    // a pool account copied to another address is not at its PDA
    const copy = await generateKeyPairSigner();
    const original = w.h.svm.getAccount(w.pool.address);
    if (!original.exists) throw new Error("pool missing");
    w.h.svm.setAccount({ ...original, address: copy.address });
    const moved = await w.h.trySend([swapAToB(w, 1_000n, 0n, { pool: copy.address })], w.trader);
    expect(moved.customCode).toBe(E.InvalidPda);
    // the trader must sign: a swap from someone else's account is refused by the token program
    const thief = await w.h.wallet();
    const stolen = await w.h.trySend([swapAToB(w, 1_000n, 0n, { user: thief })], thief);
    expect(stolen.ok).toBe(false);
    expect(vaults()).toEqual(before);
  });

  it("refuses a pool with mints out of order, an existing pool, and a fee above 10%", async () => {
    const h = w.h;
    const [x, y] = sortSwapMints(await h.createMint(6), await h.createMint(6));
    const tooHigh = await getInitializeSwapPoolInstruction({
      programAddress: h.programId,
      payer: h.payer,
      mintX: x,
      mintY: y,
      feeBps: 1001,
    });
    expect((await h.trySend([tooHigh])).customCode).toBe(E.InvalidFee);
    const swapped = await getInitializeSwapPoolInstruction({
      programAddress: h.programId,
      payer: h.payer,
      mintX: x,
      mintY: y,
      feeBps: 30,
    });
    const accounts = [...swapped.accounts!];
    [accounts[2], accounts[3]] = [accounts[3]!, accounts[2]!];
    expect((await h.trySend([{ ...swapped, accounts }])).customCode).toBe(E.InvalidMint);
    await h.send([swapped]);
    const again = await getInitializeSwapPoolInstruction({
      programAddress: h.programId,
      payer: h.payer,
      mintX: y,
      mintY: x,
      feeBps: 30,
    });
    expect((await h.trySend([again])).customCode).toBe(E.AlreadyInitialized);
  });
});
