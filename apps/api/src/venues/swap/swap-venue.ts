import { address } from "@cistern/sdk";
import type { QuoteGetRequest, QuoteResponse, SwapInstructionsResponse, SwapRequest } from "@jup-ag/api";
import { AccountRole, type Address, type Instruction } from "@solana/kit";

/**
 * A swap venue in the production API's shapes (Jupiter's swap API v1: quote, then swap instructions), so the
 * builder has one interface whichever venue answers: the local swap venue on localnet, Jupiter in production.
 */
export interface SwapVenue {
  /** "local" (the embedded default's AMM) or "jupiter". */
  readonly name: "local" | "jupiter";
  quote(request: QuoteGetRequest): Promise<QuoteResponse>;
  /**
   * The instructions that execute `quoteResponse` for `userPublicKey`. `sourceTokenAccount` (a local-venue
   * extension) names the account the input comes from when it is not the user's associated token account.
   */
  swapInstructions(request: SwapRequest & { sourceTokenAccount?: string }): Promise<SwapInstructionsResponse>;
}

export type { QuoteGetRequest, QuoteResponse, SwapInstructionsResponse, SwapRequest };

/** Slippage the spec's swap call uses when none is given, basis points. */
export const DEFAULT_SLIPPAGE_BPS = 100;

/** A venue instruction (JSON: base64 data, account metas) as a kit instruction. */
export function toKitInstruction(ix: SwapInstructionsResponse["swapInstruction"]): Instruction {
  return {
    programAddress: address(ix.programId),
    accounts: ix.accounts.map((a) => ({
      address: address(a.pubkey) as Address,
      role: a.isSigner
        ? a.isWritable
          ? AccountRole.WRITABLE_SIGNER
          : AccountRole.READONLY_SIGNER
        : a.isWritable
          ? AccountRole.WRITABLE
          : AccountRole.READONLY,
    })),
    data: new Uint8Array(Buffer.from(ix.data, "base64")),
  };
}

/** The least output a quote accepts after slippage: floor(out x (10000 - slippage) / 10000). */
export function minimumOutAfterSlippage(outAmount: bigint, slippageBps: number): bigint {
  return (outAmount * BigInt(10_000 - slippageBps)) / 10_000n;
}
