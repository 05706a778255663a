import { shortenAddress } from "@cistern/protocol";
import { useCollections, useTokens } from "./pool-data.ts";

/** Display name of a collateral: an NFT collection's name or a token's symbol. */
export function useCollateralNamer(): (id: string) => string {
  const collections = useCollections();
  const tokens = useTokens();
  return (id) => collections.data?.get(id)?.name || tokens.data?.[id]?.symbol || shortenAddress(id);
}
