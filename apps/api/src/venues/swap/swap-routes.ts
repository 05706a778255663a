import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { Pubkey, withErrors } from "../../http/schemas.ts";
import { toRequestError } from "../../tx/tx-errors.ts";
import { DEFAULT_SLIPPAGE_BPS, type SwapVenue } from "./swap-venue.ts";

const Instruction = Type.Object({
  programId: Type.String(),
  accounts: Type.Array(
    Type.Object({ pubkey: Type.String(), isSigner: Type.Boolean(), isWritable: Type.Boolean() }),
  ),
  data: Type.String({ description: "base64" }),
});

const QuoteResponse = Type.Object(
  {
    inputMint: Type.String(),
    inAmount: Type.String(),
    outputMint: Type.String(),
    outAmount: Type.String(),
    otherAmountThreshold: Type.String(),
    swapMode: Type.String(),
    slippageBps: Type.Integer(),
    priceImpactPct: Type.String(),
    routePlan: Type.Array(
      Type.Object({
        swapInfo: Type.Object({
          ammKey: Type.String(),
          label: Type.Optional(Type.String()),
          inputMint: Type.String(),
          outputMint: Type.String(),
          inAmount: Type.String(),
          outAmount: Type.String(),
        }),
        percent: Type.Optional(Type.Integer()),
      }),
    ),
    contextSlot: Type.Optional(Type.Integer()),
    timeTaken: Type.Optional(Type.Number()),
  },
  { additionalProperties: true },
);

/**
 * The swap venue's HTTP service, in the shapes of Jupiter's swap API v1 (GET /swap/v1/quote, POST
 * /swap/v1/swap-instructions). With the local venue this is the stand-in for what the production adapter calls
 * at api.jup.ag; with Jupiter it forwards there, so the web app quotes through one origin either way.
 * `sourceTokenAccount` is a local extension (the input's account when it is not the user's associated one).
 */
export function registerSwapRoutes(app: FastifyInstance, venue: SwapVenue): void {
  app.get(
    "/swap/v1/quote",
    {
      schema: {
        description:
          "Quote an exact-input swap on the local AMM (Jupiter's quote shape). Direct routes only.",
        tags: ["swap venue"],
        querystring: Type.Object(
          {
            inputMint: Pubkey,
            outputMint: Pubkey,
            amount: Type.String({ pattern: "^[1-9][0-9]{0,19}$", description: "input, base units" }),
            slippageBps: Type.Optional(
              Type.Integer({ minimum: 0, maximum: 5000, default: DEFAULT_SLIPPAGE_BPS }),
            ),
            onlyDirectRoutes: Type.Optional(Type.Boolean()),
            swapMode: Type.Optional(Type.Literal("ExactIn")),
            platformFeeBps: Type.Optional(Type.Literal(0)),
          },
          { additionalProperties: false },
        ),
        response: withErrors({ 200: QuoteResponse }),
      },
    },
    async (request) => {
      const q = request.query as {
        inputMint: string;
        outputMint: string;
        amount: string;
        slippageBps?: number;
      };
      try {
        return await venue.quote({
          inputMint: q.inputMint,
          outputMint: q.outputMint,
          amount: Number(q.amount),
          slippageBps: q.slippageBps ?? DEFAULT_SLIPPAGE_BPS,
        });
      } catch (error) {
        throw toRequestError(error);
      }
    },
  );

  app.post(
    "/swap/v1/swap-instructions",
    {
      schema: {
        description: "The instructions that execute a quote (Jupiter's swap-instructions shape).",
        tags: ["swap venue"],
        body: Type.Object(
          {
            quoteResponse: QuoteResponse,
            userPublicKey: Pubkey,
            sourceTokenAccount: Type.Optional(Pubkey),
            destinationTokenAccount: Type.Optional(Pubkey),
            wrapAndUnwrapSol: Type.Optional(Type.Boolean()),
            dynamicComputeUnitLimit: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: withErrors({
          200: Type.Object({
            otherInstructions: Type.Array(Instruction),
            computeBudgetInstructions: Type.Array(Instruction),
            setupInstructions: Type.Array(Instruction),
            swapInstruction: Instruction,
            cleanupInstruction: Type.Optional(Instruction),
            addressLookupTableAddresses: Type.Array(Type.String()),
          }),
        }),
      },
    },
    async (request) => {
      try {
        return await venue.swapInstructions(request.body as never);
      } catch (error) {
        throw toRequestError(error);
      }
    },
  );
}
