import { formatUnits, type TransactionCosts } from "@cistern/protocol";
import type { Term } from "./page-kit.tsx";

/** Lamports as SOL to the lamport ("0.00792048 SOL"): a cost is never rounded. */
export function formatLamportsExact(lamports: bigint): string {
  return `${formatUnits(lamports, 9)} SOL`;
}

const listOf = (labels: string[]) =>
  labels.length <= 1 ? (labels[0] ?? "") : `${labels.slice(0, -1).join(", ")} and ${labels.at(-1)}`;

/**
 * The terms rows of what a transaction takes in SOL besides its amounts, as the API measured them on the transaction
 * it builds: the network fee, the rent of each account it opens (named), the rent that comes back to the wallet, and
 * the SOL the wallet's balance loses in all (`solAmountLamports`: what the terms themselves move in SOL, e.g. a SOL
 * down payment; negative when the wallet receives SOL).
 */
export function getCostTerms(
  costs: TransactionCosts,
  options: { solAmountLamports?: bigint; rentBackLater?: { label: string; when: string } } = {},
): Term[] {
  const rows: Term[] = [
    [
      "Network fee",
      formatLamportsExact(costs.baseFeeLamports + costs.priorityFeeLamports + costs.tipLamports),
      costs.tipLamports > 0n ? "paid to Solana, with the Jito tip" : "paid to Solana",
    ],
  ];
  if (costs.rent.length > 0) {
    const later =
      options.rentBackLater && costs.rent.some((r) => r.label === options.rentBackLater!.label)
        ? `; ${options.rentBackLater.label}'s rent comes back ${options.rentBackLater.when}`
        : "";
    rows.push([
      "Account rent",
      formatLamportsExact(costs.rent.reduce((s, r) => s + r.lamports, 0n)),
      `opens ${listOf(costs.rent.map((r) => r.label))}${later}`,
    ]);
  }
  if (costs.rentBack.length > 0)
    rows.push([
      "Rent back",
      formatLamportsExact(costs.rentBack.reduce((s, r) => s + r.lamports, 0n)),
      `${listOf(costs.rentBack.map((r) => r.label))} closes to your wallet`,
    ]);
  const total = costs.totalLamports + (options.solAmountLamports ?? 0n);
  rows.push(
    total >= 0n
      ? ["SOL taken in all", formatLamportsExact(total), "exactly this leaves your wallet's SOL balance"]
      : [
          "SOL received in all",
          formatLamportsExact(-total),
          "exactly this arrives in your wallet's SOL balance",
        ],
  );
  return rows;
}
