import { getBuilderPriorityFeeOptions } from "../settings/priority-fee.ts";
import type { Settings } from "../settings/settings-store.ts";

/**
 * The priority-fee options a quote sends, the same the build will send (use-transaction), so the fee a quote
 * measures is the fee the built transaction carries; none when the settings hold an invalid amount (the build
 * refuses it in its own words).
 */
export function getQuoteOptions(settings: Settings): Record<string, unknown> {
  try {
    return { ...getBuilderPriorityFeeOptions(settings.priorityFee) };
  } catch {
    return {};
  }
}
