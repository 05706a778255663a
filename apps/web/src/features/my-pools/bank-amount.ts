import { getCurrencyByMint } from "@cistern/protocol";
import { formatMoney, parseAmountInput } from "../../kit/format.ts";

/** Checks a deposit or withdrawal amount; returns base units or the message to show. */
export function checkBankAmount(
  text: string,
  mint: string,
  limit: bigint,
  kind: "deposit" | "withdraw",
): { ok: true; amount: bigint } | { ok: false; message: string } {
  const currency = getCurrencyByMint(mint);
  if (!currency) return { ok: false, message: "Unsupported currency." };
  if (text.trim() === "") return { ok: false, message: "Enter an amount." };
  const { amount, error } = parseAmountInput(text, currency.decimals);
  if (amount === null) return { ok: false, message: error };
  if (amount > limit) {
    return {
      ok: false,
      message:
        kind === "deposit"
          ? `Your wallet holds ${formatMoney(limit, mint)}.`
          : `Only ${formatMoney(limit, mint)} is not lent out and can be withdrawn.`,
    };
  }
  return { ok: true, amount };
}
