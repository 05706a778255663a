/**
 * One plain sentence for a coded error, as a user reads it: amounts in the currency's units (through the
 * caller's formatter), no addresses, no base units. Codes travel intact from the program (6000-6999),
 * the API (11000-11999) and the sender to here; the web switches on the code, never on the text.
 */
import { ERROR_CODES, ERROR_MESSAGES, isCisternError } from "./errors.ts";
import { PROGRAM_ERROR_CODE } from "./program-errors.ts";

/** A coded error as the API answers it: `{code, name, message, params}`. */
export interface CodedErrorBody {
  code: number;
  name: string;
  message: string;
  params: Record<string, string>;
}

/** How the caller formats what a sentence names. */
export interface SentenceFormatters {
  /** `amount` base units of `mint` in whole units with the currency's symbol ("12.5 SOL"). */
  amount(amountBaseUnits: bigint, mint: string): string;
}

function isCodedBody(value: unknown): value is CodedErrorBody {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.code === "number" && typeof v.name === "string" && typeof v.message === "string";
}

/** The server's coded error behind `error` (itself, or an error it was caused by), if any. */
export function findCodedError(error: unknown): CodedErrorBody | null {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth++) {
    if (isCodedBody(current) && !(current instanceof Error)) {
      return { ...current, params: (current as { params?: Record<string, string> }).params ?? {} };
    }
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

const P = PROGRAM_ERROR_CODE;

/** The sentence for a coded error; null when the code has none of its own. */
function sentenceFor(e: CodedErrorBody, f: SentenceFormatters): string | null {
  const mint = e.params.mint;
  const money = (key: string): string | null => {
    const raw = e.params[key];
    return raw !== undefined && raw !== "" && mint !== undefined && /^\d+$/.test(raw)
      ? f.amount(BigInt(raw), mint)
      : null;
  };
  const days = (key: string) => {
    const raw = e.params[key];
    return raw === undefined ? null : Math.floor(Number(raw) / 86_400);
  };
  switch (e.code) {
    case P.InvalidAmount:
      return "Enter an amount greater than zero.";
    case P.InsufficientLiquidity: {
      const max = money("maxAmount");
      return max
        ? `This pool has ${max} available to lend right now.`
        : "This pool does not have enough liquidity for this loan right now.";
    }
    case P.PoolNotOpen:
      return "This pool is not taking new loans.";
    case P.ProtocolPaused:
      return "New loans are paused for now. Repaying, liquidating and withdrawing still work.";
    case P.StaleAttestation:
    case P.FutureAttestation:
      return "The quote expired before the transaction landed. Please try again.";
    case P.InvalidDuration: {
      const max = days("maxDurationSeconds");
      return max ? `Choose a duration between 1 and ${max} days.` : "Choose a duration this pool offers.";
    }
    case P.BelowMinAmountUsd: {
      const min = money("minAmount");
      return min ? `This pool's loans start at ${min}.` : "This loan is below the pool's minimum.";
    }
    case P.AboveMaxAmountUsd: {
      const max = money("maxAmount");
      return max ? `This pool lends at most ${max} per loan.` : "This loan is above the pool's maximum.";
    }
    case P.LtvExceeded: {
      const max = money("maxAmount");
      return max
        ? `This pool lends at most ${max} against this collateral.`
        : "This pool lends less against this collateral.";
    }
    case P.ExposureExceeded: {
      const max = money("maxAmount");
      return max
        ? `This pool can lend at most ${max} more against this collateral right now.`
        : "This pool has reached its limit for this collection.";
    }
    case P.CollectionNotInPool:
      return "This pool does not accept this collateral.";
    case P.ConditionsNotMet:
      return "Your wallet does not meet this pool's borrower requirements (wallet age, past loans or volume).";
    case P.NotWhitelisted:
      return "This pool is private and your wallet is not on its list.";
    case P.LoanNotOngoing:
      return loanEndedSentence(e.params);
    case P.NotLiquidatable:
      return "This loan cannot be liquidated yet: its grace period has not ended.";
    case P.AprMismatch:
      return "The pool's rate changed since your quote. Review the new terms and try again.";
    case P.InvalidCollateral:
      return "This token cannot be used as NFT collateral.";
    case P.InvalidMetadata:
      return "This NFT's metadata could not be verified, so it cannot be used as collateral.";
    case P.CollectionNotVerified:
      return "This NFT is not a verified member of a collection, so it cannot be used as collateral.";
    case P.CollateralFrozen:
      return "This NFT is frozen by another app's delegate. Unfreeze it there, then borrow against it.";
    case P.UnsafeCollateral:
      return "This NFT's collection lets someone other than its owner move or burn it, so it cannot be used as collateral.";
    case P.VenuePaused:
      return "The marginfi bank for this currency is paused: delegated funds can neither go in nor come back until marginfi resumes it. Nothing was moved.";
    case P.VenueReduceOnly:
      return "The marginfi bank for this currency is winding down: it takes no new deposits, but delegated funds can still come back.";
    case P.VenueBankrupt:
      return "The marginfi bank for this currency was closed after a bankruptcy: it takes and pays nothing now. Nothing was moved.";
    case P.VenueDepositLimit:
      return "The marginfi bank for this currency is at its deposit limit. Delegate a smaller amount or try again later.";
    case P.VenueStateUnknown:
      return "The marginfi bank for this currency is in a state Cistern does not know yet, so nothing new is delegated to it.";
    case P.SaleShort:
      return "The sale would not bring enough to repay this loan, so nothing was sold. Repay the loan instead, or sell when the price recovers.";
    case P.AutoSellDisabled:
      return "This pool does not sell collateral at liquidation; liquidate it to receive the collateral.";
    case P.RequestNotOpen:
      return "This loan request was already filled or cancelled.";
    case P.RequestTermsMismatch:
      return "This loan request's terms changed. Refresh the list and review them again.";
    case P.SelfFill:
      return "You cannot fill your own loan request.";
    case P.MortgageDisabled:
      return "This pool does not offer mortgages. Choose another offer.";
    case P.AccountNeedsMigration:
      return "This pool or loan was written before the lending program's last upgrade. Its pool's owner upgrades it from My pools (Upgrade pool), or the operator's keeper does; please try again once it is upgraded.";
    case P.NothingToMigrate:
      return "This pool and its loans are already at the program's current version.";
    case P.SameAccount:
      return "The account to receive the tokens is the one they come from. Choose your own wallet's account.";
    case P.NoFeesOwed:
      return "This bank holds no protocol fees to collect.";
    case P.InvalidVenue:
      return "This market is not one Cistern trades on. Please refresh and try again.";
    case P.LoanLiquidatable:
      return "This loan is past its grace period: it can still be repaid, but not extended.";
    case P.Unauthorized:
      return "Your wallet is not allowed to do this.";
    case P.InvalidTokenAccount:
    case P.InvalidMint:
      return "A token account in this transaction does not belong to your wallet.";
    case P.PoolHasOngoingLoans:
      return "This pool still has ongoing loans, so it cannot be closed yet.";
    case P.CollectionInUse:
      return "A collection with ongoing loans cannot be removed from the pool.";
    case 11003:
      return "The wallet signature did not match the message. Please sign again.";
    case 11007:
      return `Too many requests in a short time. Wait ${e.params.retryAfterSeconds ?? "a few"} seconds and try again.`;
    case 11004:
      return "This signature request expired or was not issued for this wallet. Please try again.";
    case 11005:
      return "This signed message was already used. Please sign again.";
    case 11006:
      return "Jito tips are not available on this network. Choose priority fees in Settings and try again.";
    case ERROR_CODES.LOAN_LIQUIDITY_DELEGATED: {
      if (e.params.viewer === "lender")
        return "Your bank's idle funds are delegated to the lending venue, and filling a request cannot pull them back: withdraw delegated funds on My pools, then fill the request.";
      const max = money("maxAmount");
      return max && e.params.maxAmount !== "0"
        ? `Most of this pool's funds are delegated to a lending venue, which this transaction cannot pull them back from, so the pool can lend ${max} right now: ask for at most that, or choose another pool.`
        : "This pool's funds are delegated to a lending venue, which this transaction cannot pull them back from: choose another pool, or repay and take a new loan, which pulls them back.";
    }
    case ERROR_CODES.NO_RELIABLE_PRICE:
      // params.collection: the collection's or token's name (never its address)
      return `No reliable price for ${e.params.collection ?? "this collateral"} right now.`;
    case ERROR_CODES.BLOCK_HEIGHT_EXCEEDED:
      return "The transaction was not confirmed in time. This is due to network congestion. Please try again in few mins.";
    case ERROR_CODES.TRANSACTION_SEND_RULE_SET_REFUSED:
      return ERROR_MESSAGES[ERROR_CODES.TRANSACTION_SEND_RULE_SET_REFUSED];
    default:
      return null;
  }
}

/**
 * Why an action found its loan closed, by how it ended. Params, when the caller knows them: `status` (how the loan
 * ended as the chain holds it: Repaid, Extended, Refinanced, Liquidated, AutoSold or Sold), `viewer` ("lender" for
 * the pool's owner, "borrower") and `collateral` ("NFT" or "tokens").
 */
function loanEndedSentence(params: Record<string, string>): string {
  const lender = params.viewer === "lender";
  switch (params.status) {
    case "Liquidated":
      if (lender)
        return `This loan was already liquidated: the ${params.collateral === "tokens" ? "tokens are" : "NFT is"} in your wallet.`;
      return params.viewer === "borrower"
        ? "This loan was already liquidated: its collateral went to the lender."
        : "This loan was already liquidated.";
    case "AutoSold":
      return lender
        ? "This loan was already liquidated: its collateral was sold and the proceeds are in your pool's bank."
        : "This loan was already liquidated: its collateral was sold.";
    case "Repaid":
      return "This loan was already repaid.";
    case "Extended":
      return "This loan was extended: it continues as a new loan.";
    case "Refinanced":
      return "This loan was moved to another pool: it continues as a new loan there.";
    case "Sold":
      return "This loan already ended: its collateral was sold and the loan repaid from the sale.";
    default:
      return "This loan is already closed.";
  }
}

/**
 * One sentence for any failure: a coded server error by its code (program codes with their parameters in
 * currency units), a CisternError by its message, else the error's text. Unknown program codes read
 * "The program refused this transaction (error {code})."
 */
export function describeErrorForUser(error: unknown, formatters: SentenceFormatters): string {
  const coded = findCodedError(error);
  if (coded !== null) {
    const sentence = sentenceFor(coded, formatters);
    if (sentence !== null) return sentence;
    if (coded.code >= 6000 && coded.code <= 6999)
      return `The program refused this transaction (error ${coded.code}).`;
    return coded.message;
  }
  if (isCisternError(error)) return error.message;
  if (error instanceof Error) return error.message;
  return typeof error === "string" ? error : "Something went wrong.";
}
