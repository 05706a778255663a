import { listCurrencies } from "@cistern/protocol";
import { useWallet } from "@solana/wallet-adapter-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { useAppContext } from "../app-context.ts";
import { requestJson } from "../tx/http-client.ts";
import { clearWalletData, refreshScopes, WALLET_SCOPES } from "./refresh.ts";

/** Supported currency mints: the API's list, or the protocol's table when the API is unreachable. */
export function useSupportedCurrencies() {
  const { config } = useAppContext();
  return useQuery({
    queryKey: ["currencies", config.apiUrl],
    queryFn: async (): Promise<string[]> => {
      try {
        const body = await requestJson<unknown>(`${config.apiUrl}/currency/currencies`);
        const list = Array.isArray(body) ? body : ((body as { currencies?: unknown[] })?.currencies ?? []);
        const mints = list
          .map((c) =>
            typeof c === "object" && c !== null ? (c as { mint?: unknown; currencyId?: unknown }) : {},
          )
          .map((c) =>
            typeof c.mint === "string" ? c.mint : typeof c.currencyId === "string" ? c.currencyId : null,
          )
          .filter((m): m is string => m !== null);
        if (mints.length > 0) return mints;
      } catch (error) {
        console.error("An error occurred while fetching data", error);
      }
      return listCurrencies().map((c) => c.mint);
    },
    staleTime: 5 * 60_000,
  });
}

/**
 * Refreshes wallet data when the wallet connects or changes (once supported currencies are known)
 * and clears wallet assets, user stats and collateral totals when it disconnects.
 */
export function WalletDataSync() {
  const { publicKey } = useWallet();
  const queryClient = useQueryClient();
  const currencies = useSupportedCurrencies();
  const address = publicKey?.toBase58() ?? null;
  const previous = useRef<string | null>(null);

  useEffect(() => {
    if (address === null) {
      if (previous.current !== null) clearWalletData(queryClient);
      previous.current = null;
      return;
    }
    if (!currencies.isSuccess || previous.current === address) return;
    previous.current = address;
    void refreshScopes(queryClient, WALLET_SCOPES);
  }, [address, currencies.isSuccess, queryClient]);
  return null;
}
