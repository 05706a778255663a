import { address } from "@cistern/sdk";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { DEFAULT_SLIPPAGE_BPS, toKitInstruction } from "../../venues/swap/swap-venue.ts";
import type { TxContext } from "../tx-context.ts";
import { badRequest } from "../tx-errors.ts";
import { body, Pubkey, parseBaseUnits } from "./builder-schemas.ts";
import { currencyFlow } from "./currency-flows.ts";
import { requireNotOracle } from "./loan-builder.ts";
import { type BuildPlan, builderRoute, type CommonBody } from "./route-kit.ts";

/** A wallet's swap request after parsing. */
export interface SwapInput {
  wallet: string;
  inputMint: string;
  outputMint: string;
  /** Input, base units. */
  amount: bigint;
  slippageBps?: number;
}

/**
 * The swap widget's trade: the venue's quote and swap instruction between the wallet's own token accounts
 * (created when missing; SOL wrapped before and unwrapped after), signed by the wallet alone. The venue's
 * program enforces the quote's minimum output after slippage. Kind Normal.
 */
export async function swapPlan(tx: TxContext, input: SwapInput): Promise<BuildPlan> {
  requireNotOracle(tx, "wallet", input.wallet);
  if (input.inputMint === input.outputMint) throw badRequest("inputMint and outputMint must differ");
  if (input.amount <= 0n) throw badRequest("amount must be positive");
  const wallet = address(input.wallet);
  const slippageBps = input.slippageBps ?? DEFAULT_SLIPPAGE_BPS;
  const quote = await tx.swapVenue.quote({
    inputMint: input.inputMint,
    outputMint: input.outputMint,
    amount: Number(input.amount),
    slippageBps,
  });
  const source = await currencyFlow(wallet, address(input.inputMint), input.amount);
  const destination = await currencyFlow(wallet, address(input.outputMint));
  const swap = await tx.swapVenue.swapInstructions({
    quoteResponse: quote,
    userPublicKey: wallet,
    wrapAndUnwrapSol: false,
    sourceTokenAccount: source.tokenAccount,
    destinationTokenAccount: destination.tokenAccount,
  });
  return {
    feePayer: wallet,
    groups: [
      [
        ...source.before,
        ...destination.before,
        toKitInstruction(swap.swapInstruction),
        ...source.after,
        ...destination.after,
      ],
    ],
    metadata: {
      swap: {
        inputMint: input.inputMint,
        outputMint: input.outputMint,
        inAmount: quote.inAmount,
        outAmount: quote.outAmount,
        minimumOut: quote.otherAmountThreshold,
        priceImpactPct: quote.priceImpactPct,
        slippageBps,
        venue: tx.swapVenue.name,
      },
    },
  };
}

const SwapBody = body({
  wallet: Pubkey,
  inputMint: Pubkey,
  outputMint: Pubkey,
  amount: Type.String({ maxLength: 40, description: "input, base units" }),
  slippageBps: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 5000, default: 100, description: "largest slippage accepted, bps" }),
  ),
});

/** `POST /defi/swap`: the swap widget's trade on the swap venue. */
export function registerSwapBuilderRoute(app: FastifyInstance, tx: TxContext): void {
  builderRoute<
    CommonBody & {
      wallet: string;
      inputMint: string;
      outputMint: string;
      amount: string;
      slippageBps?: number;
    }
  >(
    app,
    tx,
    "/defi/swap",
    "Swap `amount` of `inputMint` into `outputMint` on the swap venue, between the wallet's own token accounts " +
      "(SOL wrapped and unwrapped); the venue refuses less than the quote's minimum after slippage. Kind Normal.",
    SwapBody,
    (b) =>
      swapPlan(tx, {
        wallet: b.wallet,
        inputMint: b.inputMint,
        outputMint: b.outputMint,
        amount: parseBaseUnits("amount", b.amount),
        ...(b.slippageBps !== undefined ? { slippageBps: b.slippageBps } : {}),
      }),
  );
}
