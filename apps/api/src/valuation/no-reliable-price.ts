import { ERROR_MESSAGES, ERROR_CODES as PROTOCOL_CODES } from "@cistern/protocol";
import { ApiError, ERROR_CODES } from "../errors/api-error.ts";

/**
 * The refusal of a quote or a co-signature when the valuation service has no usable price for `name` (a collection's
 * or token's name, never its address): the protocol's code 2010 and sentence; `reason` (missing, stale, wide, or the
 * NFT rule's) travels in the params for logs and support.
 */
export function noReliablePrice(name: string, reason: string): ApiError {
  const message = ERROR_MESSAGES[PROTOCOL_CODES.NO_RELIABLE_PRICE].replace("{collection}", name);
  return new ApiError(ERROR_CODES.NO_RELIABLE_PRICE, message, { params: { collection: name, reason } });
}
