// The borrower's sentences per NFT standard (src/features/borrow/nft-standard.ts): every standard the API lends
// against has its custody sentence, and which standards cannot be posted in a loan request.
import { describe, expect, it } from "vitest";
import { describeCustody, getNoRequestNote } from "../src/features/borrow/nft-standard.ts";

describe("NFT standard sentences", () => {
  it("a compressed NFT can be borrowed against: its custody in one sentence", () => {
    expect(describeCustody("CompressedNft")).toBe(
      "The loan holds it until you repay; if the loan defaults it goes to the lender.",
    );
    for (const s of ["Nft", "ProgrammableNft", "CoreNft", "CompressedNft"] as const)
      expect(describeCustody(s)).not.toBeNull();
  });

  it("every standard but a programmable NFT can be posted in a loan request", () => {
    expect(getNoRequestNote("ProgrammableNft")).toBe(
      "A programmable NFT cannot be posted in a loan request: borrow from an offer instead.",
    );
    for (const s of ["Nft", "CoreNft", "CompressedNft"] as const) expect(getNoRequestNote(s)).toBeNull();
  });
});
