import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../errors.ts";
import { parseLoan, parseLoanList } from "../parse-loan.ts";

const nftLoanView = {
  pubkey: "Loan1",
  borrower: "Borrower1",
  pool: "Pool1",
  currency: "So11111111111111111111111111111111111111112",
  amount: "2500000000",
  collateral: "NftMint1",
  collection: "Collection1",
  interest: "12345",
  duration: 604800,
  createdAt: 1_700_000_000,
  status: "ongoing",
  loanType: "programmableNft",
  kind: { classicLoan: {} },
  metadata: { borrowedAmountUsd: 350.5, collateralAmountUsd: "700" },
};

describe("parseLoan", () => {
  it("parses an NFT loan", () => {
    const loan = parseLoan(nftLoanView);
    expect(loan).toMatchObject({
      pubkey: "Loan1",
      borrower: "Borrower1",
      amount: 2_500_000_000n,
      collateralAmount: undefined,
      isDefi: false,
      collection: "Collection1",
      interest: 12_345n,
      duration: 604_800,
      createdAt: 1_700_000_000,
      expiredAt: 1_700_604_800,
      repaidAt: 0,
      status: "Ongoing",
      loanType: "ProgrammableNft",
      kind: { type: "ClassicLoan" },
      sale: undefined,
      metadata: { borrowedAmountUsd: 350.5, collateralAmountUsd: 700 },
    });
  });

  it("takes the amount from borrowedAmount when amount is absent", () => {
    const { amount: _ignored, ...rest } = nftLoanView;
    expect(parseLoan({ ...rest, borrowedAmount: 42 }).amount).toBe(42n);
    expect(() => parseLoan(rest)).toThrowError(
      expect.objectContaining({ code: ERROR_CODES.INVALID_SERVER_FIELD }),
    );
  });

  it("parses a sold token loan: isDefi, collection is the currency id, soldAmount is the sale price", () => {
    const loan = parseLoan({
      pubkey: "Loan2",
      borrower: "B",
      amount: 1_000_000,
      collateralAmount: "5000000000",
      collateral: "JUPmint",
      interest: 10,
      duration: 86400,
      createdAt: 100,
      expiredAt: 86_500,
      soldAt: 90_000,
      status: { sold: {} },
      soldAmount: "1200000",
      sale: { saleSlot: 77, saleTransaction: "sigX" },
      kind: { marginSwapLoan: { downPayment: "300000" } },
    });
    expect(loan.isDefi).toBe(true);
    expect(loan.collateralAmount).toBe(5_000_000_000n);
    expect(loan.collection).toBe("JUPmint");
    expect(loan.status).toBe("Sold");
    expect(loan.sale).toEqual({ salePrice: 1_200_000n, saleSlot: 77, saleTransaction: "sigX" });
    expect(loan.kind).toEqual({ type: "MarginSwapLoan", downPayment: 300_000n });
  });

  it("keeps the server sale of an NFT loan", () => {
    const loan = parseLoan({
      ...nftLoanView,
      status: "sold",
      soldAmount: 5,
      sale: { salePrice: "900", saleSlot: 1, saleTransaction: "t" },
    });
    expect(loan.sale).toEqual({ salePrice: 900n, saleSlot: 1, saleTransaction: "t" });
  });

  it("reads kinds given as strings", () => {
    expect(parseLoan({ ...nftLoanView, kind: "RequestLoan" }).kind).toEqual({ type: "RequestLoan" });
    expect(parseLoan({ ...nftLoanView, kind: undefined }).kind).toEqual({ type: "ClassicLoan" });
    expect(() => parseLoan({ ...nftLoanView, kind: "flashLoan" })).toThrowError(
      "Invalid loan field kind: flashLoan",
    );
  });

  it("rejects negative or fractional amounts", () => {
    expect(() => parseLoan({ ...nftLoanView, amount: -5 })).toThrowError("Invalid loan field amount: -5");
    expect(() => parseLoan({ ...nftLoanView, amount: "1.5" })).toThrowError(
      expect.objectContaining({ code: 9000 }),
    );
  });
});

describe("parseLoanList", () => {
  it("parses loans and counts", () => {
    const list = parseLoanList({
      loans: [nftLoanView, { ...nftLoanView, pubkey: "Loan3", status: "repaid" }],
      totalCount: 10,
      ongoingCount: 4,
    });
    expect(list.loans.map((l) => l.status)).toEqual(["Ongoing", "Repaid"]);
    expect(list.totalCount).toBe(10);
    expect(list.ongoingCount).toBe(4);
    const derived = parseLoanList({ loans: [nftLoanView] });
    expect(derived).toMatchObject({ totalCount: 1, ongoingCount: 1 });
  });
});
