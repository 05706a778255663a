import {
  bigintMin,
  computeRepayment,
  formatBps,
  formatDateTime,
  formatMoney,
  type Loan,
} from "@cistern/protocol";

/**
 * How a closed loan ended, in the product's words. The chain's Loan.closedBy says it (the API's `closedBy`); an
 * answer without it falls back to what the other fields imply (a continuing loan: extended; a liquidation that
 * brought proceeds: auto-sold). A repaid mortgage is "paid-off": the NFT was bought with it and is now the buyer's.
 */
export type LoanEnding =
  | "repaid"
  | "paid-off"
  | "extended"
  | "refinanced"
  | "liquidated"
  | "auto-sold"
  | "sold";

/** The ending of a closed loan, or null while it is ongoing. */
export function getLoanEnding(loan: Loan): LoanEnding | null {
  const closedBy =
    loan.closedBy ??
    (loan.status === "Repaid"
      ? loan.extendedTo === undefined
        ? "Repaid"
        : "Extended"
      : loan.status === "Liquidated"
        ? (loan.repaidAmount ?? 0n) > 0n
          ? "AutoSold"
          : "Liquidated"
        : loan.status === "Sold"
          ? "Sold"
          : undefined);
  switch (closedBy) {
    case "Repaid":
      return loan.kind.type === "Mortgage" ? "paid-off" : "repaid";
    case "Extended":
      return "extended";
    case "Refinanced":
      return "refinanced";
    case "Liquidated":
      return "liquidated";
    case "AutoSold":
      return "auto-sold";
    case "Sold":
      return "sold";
    default:
      return null;
  }
}

/** Status label of a closed loan by its ending. */
export const ENDING_LABEL: Record<LoanEnding, string> = {
  repaid: "Repaid",
  "paid-off": "Paid off",
  extended: "Extended",
  refinanced: "Refinanced",
  liquidated: "Liquidated",
  "auto-sold": "Sold at liquidation",
  sold: "Sold",
};

/** An auto-sale at liquidation as the chain recorded it, base units of the loan's currency. */
export interface AutoSale {
  /** What the sale brought into the lender's bank (the loan's repaidAmount). */
  proceeds: bigint;
  /** Principal + interest owed at the liquidation: what repaid the loan (the program requires proceeds >= it). */
  repaid: bigint;
  /** Proceeds above that: the lender's too (LiquidateSell pays the borrower nothing). */
  aboveOwed: bigint;
  /** Proceeds - principal: what the lender earned (the program adds it to the bank and the pool's interest). */
  earned: bigint;
}

/** The auto-sale of a loan that ended "auto-sold", from its recorded proceeds and the protocol's repayment maths. */
export function getAutoSale(loan: Loan): AutoSale | null {
  if (getLoanEnding(loan) !== "auto-sold" || loan.repaidAmount === undefined || loan.aprBps === undefined)
    return null;
  const proceeds = loan.repaidAmount;
  const { repayment } = computeRepayment({
    aprBps: loan.aprBps,
    principal: loan.amount,
    durationSeconds: loan.duration,
    createdAt: loan.createdAt,
    now: loan.liquidatedAt,
  });
  const repaid = bigintMin(repayment, proceeds);
  return { proceeds, repaid, aboveOwed: proceeds - repaid, earned: proceeds - loan.amount };
}

/** Title and sentence of a closed loan for its borrower (the bell). `next` is the loan that continues it. */
export function describeEndingForBorrower(loan: Loan, next?: Loan): { title: string; body: string } | null {
  const ending = getLoanEnding(loan);
  const money = (amount: bigint) => formatMoney(amount, loan.currency);
  const principal = money(loan.amount);
  const continues =
    next === undefined
      ? "it continues as a new loan"
      : `it continues as a new loan at ${formatBps(next.aprBps ?? 0)} APR, due ${formatDateTime(next.createdAt + next.duration)}`;
  switch (ending) {
    case "repaid":
      return {
        title: "Loan repaid",
        body: `Your ${principal} loan is repaid${loan.repaidAmount ? ` (${formatMoney(loan.repaidAmount, loan.currency, "up")})` : ""} and the collateral is back in your wallet.`,
      };
    case "paid-off":
      return {
        title: "Mortgage paid off",
        body: `Your ${principal} mortgage is paid off: the NFT you bought with it is now in your wallet.`,
      };
    case "extended":
      return {
        title: "Loan extended",
        body: `Your ${principal} loan was extended: you paid the interest so far and ${continues}. Your collateral stays locked until you repay it.`,
      };
    case "refinanced":
      return {
        title: "Loan moved to another pool",
        body: `Your ${principal} loan moved to a cheaper pool: the old lender was paid off and ${continues}. Your collateral stays locked until you repay it.`,
      };
    case "liquidated":
      return {
        title: "Loan liquidated",
        body: `Your ${principal} loan was not repaid by the end of its grace period: the collateral went to the lender.`,
      };
    case "auto-sold": {
      const sale = getAutoSale(loan);
      return {
        title: "Collateral sold at liquidation",
        body:
          sale === null
            ? `Your ${principal} loan was not repaid by the end of its grace period: its collateral was sold and the lender's bank received the proceeds.`
            : `Your ${principal} loan was not repaid by the end of its grace period: its collateral was sold for ${money(sale.proceeds)}, all paid to the lender's bank (${formatMoney(sale.repaid, loan.currency, "up")} repaid the loan${sale.aboveOwed > 0n ? `, the ${money(sale.aboveOwed)} above that went to the lender too` : ""}). Nothing comes back to you.`,
      };
    }
    case "sold":
      return {
        title: "Collateral sold",
        body: `Your ${principal} loan was repaid from the sale of its collateral${loan.sale ? ` for ${money(loan.sale.salePrice)}` : ""}; the rest of the sale is in your wallet.`,
      };
    default:
      return null;
  }
}

/**
 * The History table's "Paid" and "Interest" cells of a closed loan: what was paid and the interest it earned, or
 * what happened instead (a liquidation took the collateral; an auto-sale sold it for the proceeds).
 */
export function getHistoryFigures(loan: Loan): { paid: string; interest: string } {
  const ending = getLoanEnding(loan);
  const money = (amount: bigint) => formatMoney(amount, loan.currency);
  if (ending === "liquidated") return { paid: "collateral to the lender", interest: "—" };
  if (ending === "auto-sold") {
    const sale = getAutoSale(loan);
    return sale === null
      ? { paid: "collateral sold at liquidation", interest: "—" }
      : {
          paid: `sold at liquidation for ${money(sale.proceeds)}, all to the lender`,
          interest: money(sale.earned > 0n ? sale.earned : 0n),
        };
  }
  const paid = loan.repaidAmount;
  const interest = paid !== undefined && paid >= loan.amount ? money(paid - loan.amount) : "—";
  if (paid === undefined) return { paid: "—", interest };
  return { paid: `${money(paid)}${ending === "sold" ? " from the sale" : ""}`, interest };
}
