// The borrower's sentences per NFT standard (src/features/borrow/nft-standard.ts): every standard the API lends
// against has its custody sentence, and the standard a loan request holds otherwise than a loan from an offer.
import { describe, expect, it } from "vitest";
import { describeCustody, getRequestCustodyNote } from "../src/features/borrow/nft-standard.ts";

describe("NFT standard sentences", () => {
  it("a compressed NFT can be borrowed against: its custody in one sentence", () => {
    expect(describeCustody("CompressedNft")).toBe(
      "The loan holds it until you repay; if the loan defaults it goes to the lender.",
    );
    for (const s of ["Nft", "ProgrammableNft", "CoreNft", "CompressedNft"] as const)
      expect(describeCustody(s)).not.toBeNull();
  });

  it("every standard can be posted in a loan request; a programmable NFT's request holds it outside the wallet", () => {
    expect(getRequestCustodyNote("ProgrammableNft")).toBe(
      "A loan request holds it outside your wallet: the request, then the loan, owns it until you cancel or repay.",
    );
    for (const s of ["Nft", "CoreNft", "CompressedNft"] as const) expect(getRequestCustodyNote(s)).toBeNull();
  });
});
