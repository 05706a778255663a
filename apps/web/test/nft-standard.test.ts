// The borrower's sentences per NFT standard (src/features/borrow/nft-standard.ts): every standard the API lends
// against has its custody sentence, and the loans that cannot be sold instantly say so.
import { describe, expect, it } from "vitest";
import { describeCustody, getNoRequestNote, getNoSaleNote } from "../src/features/borrow/nft-standard.ts";

describe("NFT standard sentences", () => {
  it("a compressed NFT can be borrowed against: its custody in one sentence; its loan is sold instantly", () => {
    expect(describeCustody("CompressedNft")).toBe(
      "The loan holds it until you repay; if the loan defaults it goes to the lender.",
    );
    expect(getNoSaleNote("CompressedNft")).toBeNull();
    for (const s of ["Nft", "ProgrammableNft", "CoreNft", "CompressedNft"] as const)
      expect(describeCustody(s)).not.toBeNull();
    expect(getNoSaleNote("Nft")).toBeNull();
  });

  it("a Core asset's and a programmable NFT's loans are sold instantly like a classic NFT's", () => {
    expect(getNoSaleNote("CoreNft")).toBeNull();
    expect(getNoSaleNote("ProgrammableNft")).toBeNull();
  });

  it("every standard but a programmable NFT can be posted in a loan request", () => {
    expect(getNoRequestNote("ProgrammableNft")).toBe(
      "A programmable NFT cannot be posted in a loan request: borrow from an offer instead.",
    );
    for (const s of ["Nft", "CoreNft", "CompressedNft"] as const) expect(getNoRequestNote(s)).toBeNull();
  });
});
