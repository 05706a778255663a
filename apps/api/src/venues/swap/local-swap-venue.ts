import {
  decodeSwapPool,
  decodeVenuesAccount,
  findSwapPoolPda,
  findVenuesPda,
  getSwapInstruction,
  quoteSwapExactIn,
} from "@cistern/sdk";
import { type Address, address } from "@solana/kit";
import { ApiError, ERROR_CODES } from "../../errors/api-error.ts";
import type { RpcClient } from "../../solana/rpc-client.ts";
import { findAssociatedTokenAddress } from "../../tx/builder/wire-instructions.ts";
import { minimumOutAfterSlippage, type SwapVenue } from "./swap-venue.ts";

/**
 * The embedded default's swap venue: the local AMM program that the lending program's Venues account pins
 * (deployed and seeded by the bootstrap). Quotes read the pool and its vault balances from the chain and use
 * the program's own maths; swap instructions are the program's Swap with the quote's minimum output.
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

  async function readPool(inputMint: Address, outputMint: Address) {
    const programAddress = await program();
    const [poolAddress] = await findSwapPoolPda(programAddress, inputMint, outputMint);
    const [poolAccount] = (await rpc.getMultipleAccounts([poolAddress])).accounts;
    if (!poolAccount || poolAccount.owner !== programAddress)
      throw new ApiError(
        ERROR_CODES.UNPROCESSABLE,
        `No route: the local swap venue has no pool for ${inputMint} and ${outputMint}`,
      );
    const pool = decodeSwapPool(poolAccount.data);
    const aIn = pool.mintA === inputMint;
    const { slot, accounts } = await rpc.getMultipleAccounts([pool.vaultA, pool.vaultB]);
    const balance = (i: number) => Buffer.from(accounts[i]!.data).readBigUInt64LE(64);
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
