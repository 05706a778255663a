import { useQuery } from "@tanstack/react-query";
import { useAppContext } from "../../app-context.ts";
import { toQueryString } from "../../kit/api.ts";
import { requestJson } from "../../tx/http-client.ts";
import { type MarginOffer, parseMarginOffers } from "./margin-model.ts";

/** How often the open Margin page asks for its terms again. */
const MARGIN_OFFERS_REFRESH_MS = 15_000;

/** Margin terms of every pool lending `currency` against `target` for a down payment (multi-quote, mode margin). */
export function useMarginOffers(input: {
  owner: string;
  target: string;
  currency: string;
  downPayment: bigint | null;
  days: number;
  slippageBps: number;
}) {
  const { config } = useAppContext();
  const { owner, target, currency, downPayment, days, slippageBps } = input;
  return useQuery({
    queryKey: ["pool", "margin-offers", owner, target, currency, downPayment?.toString(), days, slippageBps],
    enabled: downPayment !== null && downPayment > 0n && target !== "" && currency !== "",
    queryFn: async (): Promise<MarginOffer[]> =>
      parseMarginOffers(
        await requestJson(`${config.apiUrl}/defi/multi-quote`, {
          body: {
            mode: "margin",
            currencyIn: target,
            currency,
            amountIn: downPayment!.toString(),
            minDurationInDays: days,
            jupSlippage: slippageBps,
            borrower: owner,
            tag: "margin",
          },
        }),
      ),
    retry: false,
    // the terms follow the market while the page is open: prices move, and pools open, fill and close
    refetchInterval: MARGIN_OFFERS_REFRESH_MS,
    refetchIntervalInBackground: false,
  });
}

/** The venue's quote (Jupiter's shape) of swapping `amount` of `inputMint` into `outputMint`. */
export function useSwapQuote(input: {
  inputMint: string;
  outputMint: string;
  amount: bigint | null;
  slippageBps: number;
}) {
  const { config } = useAppContext();
  const { inputMint, outputMint, amount, slippageBps } = input;
  return useQuery({
    queryKey: ["balance", "swap-quote", inputMint, outputMint, amount?.toString(), slippageBps],
    enabled:
      amount !== null && amount > 0n && inputMint !== "" && outputMint !== "" && inputMint !== outputMint,
    queryFn: async () => {
      const q = await requestJson<{
        outAmount: string;
        otherAmountThreshold: string;
        priceImpactPct: string;
      }>(
        `${config.apiUrl}/swap/v1/quote${toQueryString({ inputMint, outputMint, amount: amount!.toString(), slippageBps })}`,
      );
      return {
        outAmount: BigInt(q.outAmount),
        minimumOut: BigInt(q.otherAmountThreshold),
        priceImpactPct: Number(q.priceImpactPct),
      };
    },
    retry: false,
  });
}
