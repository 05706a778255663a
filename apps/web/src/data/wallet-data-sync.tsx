import { listCurrencies } from "@cistern/protocol";
import { useWallet } from "@solana/wallet-adapter-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { useAppContext } from "../app-context.ts";
import { requestJson } from "../tx/http-client.ts";
import { clearWalletData, refreshScopes, WALLET_SCOPES } from "./refresh.ts";
import { parseCurrencyNames } from "./token-names.ts";

/** Supported currency mints: the API's catalogue, or the protocol's table when the API is unreachable. */
export function useSupportedCurrencies() {
  const { config } = useAppContext();
  return useQuery({
    queryKey: ["currencies", config.apiUrl],
    queryFn: async (): Promise<string[]> => {
      try {
        const mints = Object.keys(
          parseCurrencyNames(await requestJson<unknown>(`${config.apiUrl}/currency/currencies`)),
        );
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
