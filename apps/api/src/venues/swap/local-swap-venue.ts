import {
  address,
  decodeSwapPool,
  decodeVenuesAccount,
  findSwapPoolPda,
  findVenuesPda,
  getSwapInstruction,
  quoteSwapExactIn,
} from "@cistern/sdk";
import type { Address } from "@solana/kit";
import { ApiError, ERROR_CODES } from "../../errors/api-error.ts";
import type { RpcClient } from "../../solana/rpc-client.ts";
import { findAssociatedTokenAddress } from "../../tx/builder/wire-instructions.ts";
import { minimumOutAfterSlippage, type SwapVenue } from "./swap-venue.ts";

/** How long vault balances read for quotes are reused, milliseconds (a quote is never older than this). */
export const RESERVES_TTL_MS = 250;

/**
 * The embedded default's swap venue: the local AMM program that the lending program's Venues account pins
 * (deployed and seeded by the bootstrap). Quotes read the pool (its mints, vaults and fee never change, so it is
 * read once) and its vault balances (reused for at most RESERVES_TTL_MS; the swap's minimum output is checked
 * on chain at execution) and use the program's own maths; swap instructions are the program's Swap with the
 * quote's minimum output.
 */
export function createLocalSwapVenue(rpc: RpcClient, lendingProgramId: Address): SwapVenue {
  let venueProgram: Address | undefined;
  async function program(): Promise<Address> {
    if (venueProgram !== undefined) return venueProgram;
    const [venues] = await findVenuesPda(lendingProgramId);
    const [account] = (await rpc.getMultipleAccounts([venues])).accounts;
    if (!account) throw new ApiError(ERROR_CODES.UNPROCESSABLE, "No swap venue is pinned on this cluster");
    venueProgram = decodeVenuesAccount(account.data).swapProgram;
    return venueProgram;
  }

  const pools = new Map<string, Promise<{ address: Address; pool: ReturnType<typeof decodeSwapPool> }>>();
  function poolOf(programAddress: Address, inputMint: Address, outputMint: Address) {
    const key = [inputMint, outputMint].sort().join(":");
    let found = pools.get(key);
    if (found === undefined) {
      found = (async () => {
        const [poolAddress] = await findSwapPoolPda(programAddress, inputMint, outputMint);
        const [poolAccount] = (await rpc.getMultipleAccounts([poolAddress])).accounts;
        if (!poolAccount || poolAccount.owner !== programAddress)
          throw new ApiError(
            ERROR_CODES.UNPROCESSABLE,
            `No route: the local swap venue has no pool for ${inputMint} and ${outputMint}`,
          );
        return { address: poolAddress, pool: decodeSwapPool(poolAccount.data) };
      })();
      pools.set(key, found);
      // a pool that does not exist yet may be created later: forget the refusal
      found.catch(() => pools.delete(key));
    }
    return found;
  }

  const reserves = new Map<string, { at: number; value: Promise<{ slot: number; a: bigint; b: bigint }> }>();
  function reservesOf(poolAddress: Address, pool: ReturnType<typeof decodeSwapPool>) {
    const cached = reserves.get(poolAddress);
    if (cached !== undefined && Date.now() - cached.at < RESERVES_TTL_MS) return cached.value;
    const value = rpc.getMultipleAccounts([pool.vaultA, pool.vaultB]).then(({ slot, accounts }) => ({
      slot,
      a: Buffer.from(accounts[0]!.data).readBigUInt64LE(64),
      b: Buffer.from(accounts[1]!.data).readBigUInt64LE(64),
    }));
    reserves.set(poolAddress, { at: Date.now(), value });
    value.catch(() => reserves.delete(poolAddress));
    return value;
  }

  async function readPool(inputMint: Address, outputMint: Address) {
    const programAddress = await program();
    const { address: poolAddress, pool } = await poolOf(programAddress, inputMint, outputMint);
    const aIn = pool.mintA === inputMint;
    const { slot, a, b } = await reservesOf(poolAddress, pool);
    const balance = (i: number) => (i === 0 ? a : b);
    return {
      programAddress,
      poolAddress,
      pool,
      slot,
      vaultIn: aIn ? pool.vaultA : pool.vaultB,
      vaultOut: aIn ? pool.vaultB : pool.vaultA,
      reserveIn: aIn ? balance(0) : balance(1),
      reserveOut: aIn ? balance(1) : balance(0),
    };
  }

  return {
    name: "local",
    async quote(request) {
      const started = Date.now();
      const slippageBps = request.slippageBps ?? 100;
      const amountIn = BigInt(request.amount);
      const r = await readPool(address(request.inputMint), address(request.outputMint));
      const q = quoteSwapExactIn(r.reserveIn, r.reserveOut, amountIn, r.pool.feeBps);
      return {
        inputMint: request.inputMint,
        inAmount: amountIn.toString(),
        outputMint: request.outputMint,
        outAmount: q.amountOut.toString(),
        otherAmountThreshold: minimumOutAfterSlippage(q.amountOut, slippageBps).toString(),
        swapMode: "ExactIn",
        slippageBps,
        priceImpactPct: (q.priceImpactBps / 10_000).toString(),
        routePlan: [
          {
            swapInfo: {
              ammKey: r.poolAddress,
              label: "Cistern local AMM",
              inputMint: request.inputMint,
              outputMint: request.outputMint,
              inAmount: amountIn.toString(),
              outAmount: q.amountOut.toString(),
            },
            percent: 100,
          },
        ],
        contextSlot: r.slot,
        timeTaken: (Date.now() - started) / 1000,
      };
    },
    async swapInstructions(request) {
      const quote = request.quoteResponse;
      const inputMint = address(quote.inputMint);
      const outputMint = address(quote.outputMint);
      const user = address(request.userPublicKey);
      const r = await readPool(inputMint, outputMint);
      const ix = getSwapInstruction({
        programAddress: r.programAddress,
        user,
        source: request.sourceTokenAccount
          ? address(request.sourceTokenAccount)
          : await findAssociatedTokenAddress(user, inputMint),
        destination: request.destinationTokenAccount
          ? address(request.destinationTokenAccount)
          : await findAssociatedTokenAddress(user, outputMint),
        pool: r.poolAddress,
        vaultIn: r.vaultIn,
        vaultOut: r.vaultOut,
        amountIn: BigInt(quote.inAmount),
        minAmountOut: BigInt(quote.otherAmountThreshold),
      });
      return {
        otherInstructions: [],
        computeBudgetInstructions: [],
        setupInstructions: [],
        swapInstruction: {
          programId: ix.programAddress,
          accounts: (ix.accounts ?? []).map((a) => ({
            pubkey: a.address,
            isSigner: a.role >= 2,
            isWritable: a.role === 1 || a.role === 3,
          })),
          data: Buffer.from(ix.data ?? new Uint8Array()).toString("base64"),
        },
        addressLookupTableAddresses: [],
      };
    },
  };
}
