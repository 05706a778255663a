import { ADDRESS_SHORTEN_CHARS } from "@cistern/protocol";

/**
 * "AbCd...WxYz": keeps 4 characters on each side (spec section 9).
 * Local to the web app until @cistern/protocol exports an address formatter.
 */
export function shortenAddress(address: string, chars = ADDRESS_SHORTEN_CHARS): string {
  if (address.length <= chars * 2 + 3) return address;
  return `${address.slice(0, chars)}...${address.slice(-chars)}`;
}
