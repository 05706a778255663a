import { describe, expect, it } from "vitest";
import { describeErrorForUser, findCodedError } from "../error-sentences.ts";
import { CisternError, ERROR_CODES } from "../errors.ts";
import { createHttpError } from "../http-errors.ts";
import { PROGRAM_ERRORS } from "../program-errors.ts";
import { getSignatureFromSendResponse } from "../transaction-kinds.ts";

const SOL = "So11111111111111111111111111111111111111112";
const f = { amount: (a: bigint, mint: string) => `${Number(a) / 1e9} ${mint === SOL ? "SOL" : "?"}` };

describe("a coded error becomes one sentence in currency units", () => {
  it("keeps the server's code through an HTTP 422 and words it with its params", () => {
    const body = {
      code: 6027,
      name: "LtvExceeded",
      message: "No pool can lend ...",
      params: { amount: "20000000000", maxAmount: "12500000000", mint: SOL },
    };
    const error = createHttpError(422, body);
    expect(findCodedError(error)?.code).toBe(6027);
    const sentence = describeErrorForUser(error, f);
    expect(sentence).toBe("This pool lends at most 12.5 SOL against this collateral.");
    expect(sentence).not.toMatch(/\d{6,}|So111/);
  });

  it("tells a rate-limited user how long to wait", () => {
    const body = {
      code: 11007,
      name: "RATE_LIMITED",
      message: "Too many requests",
      params: { retryAfterSeconds: "42" },
    };
    expect(describeErrorForUser(createHttpError(429, body), f)).toBe(
      "Too many requests in a short time. Wait 42 seconds and try again.",
    );
  });

  it("keeps a program code from a sender refusal", () => {
    let thrown: unknown;
    try {
      getSignatureFromSendResponse({
        result: null,
        error: { code: 6016, name: "InsufficientLiquidity", message: "amount exceeds ...", params: {} },
      } as never);
    } catch (e) {
      thrown = e;
    }
    expect(describeErrorForUser(thrown, f)).toBe(
      "This pool does not have enough liquidity for this loan right now.",
    );
  });

  it("words a pNFT's rule set refusing the loan by its code, from the builder's 422 and from the sender", () => {
    const sentence =
      "This NFT's rule set does not allow the transfers a loan needs, so it cannot be borrowed against.";
    const body = {
      code: 5006,
      name: "TRANSACTION_SEND_RULE_SET_REFUSED",
      message: "whatever the server says",
      params: {},
    };
    const built = createHttpError(422, body);
    expect(findCodedError(built)?.code).toBe(ERROR_CODES.TRANSACTION_SEND_RULE_SET_REFUSED);
    expect(describeErrorForUser(built, f)).toBe(sentence);
    let thrown: unknown;
    try {
      getSignatureFromSendResponse({ result: null, error: body } as never);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(CisternError);
    expect((thrown as CisternError).code).toBe(ERROR_CODES.TRANSACTION_SEND_RULE_SET_REFUSED);
    expect(describeErrorForUser(thrown, f)).toBe(sentence);
  });

  it("has a sentence for every program code a borrower or lender can meet, and a generic one otherwise", () => {
    for (const code of Object.keys(PROGRAM_ERRORS).map(Number)) {
      const name = PROGRAM_ERRORS[code as keyof typeof PROGRAM_ERRORS].name;
      const sentence = describeErrorForUser({ code, name, message: "x", params: {} }, f);
      expect(sentence, name).toMatch(/^[A-Z].*\.$/);
      expect(sentence).not.toContain(name);
    }
    expect(describeErrorForUser({ code: 6999, name: "Future", message: "x", params: {} }, f)).toBe(
      "The program refused this transaction (error 6999).",
    );
  });

  it("says how a closed loan ended, to whom it speaks, never with an address", () => {
    const closed = (params: Record<string, string>) =>
      describeErrorForUser({ code: 6033, name: "LoanNotOngoing", message: "x", params }, f);
    expect(closed({ status: "Liquidated", viewer: "lender", collateral: "NFT" })).toBe(
      "This loan was already liquidated: the NFT is in your wallet.",
    );
    expect(closed({ status: "Liquidated", viewer: "lender", collateral: "tokens" })).toBe(
      "This loan was already liquidated: the tokens are in your wallet.",
    );
    expect(closed({ status: "Liquidated", viewer: "borrower", collateral: "NFT" })).toBe(
      "This loan was already liquidated: its collateral went to the lender.",
    );
    expect(closed({ status: "Repaid" })).toBe("This loan was already repaid.");
    expect(closed({})).toBe("This loan is already closed.");
  });

  it("words API codes and falls back to a CisternError's own message", () => {
    expect(
      describeErrorForUser(
        createHttpError(409, { code: 11005, name: "SIGNED_MESSAGE_REPLAYED", message: "m" }),
        f,
      ),
    ).toBe("This signed message was already used. Please sign again.");
    expect(describeErrorForUser(new CisternError(ERROR_CODES.NO_TRANSACTIONS_PROVIDED), f)).toBe(
      "No transactions provided",
    );
    expect(describeErrorForUser("plain", f)).toBe("plain");
  });
});
