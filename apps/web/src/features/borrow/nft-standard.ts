/** The NFT standards the API names (an asset's nftType, a loan's loanType). */
export type NftStandard = "Nft" | "ProgrammableNft" | "CompressedNft" | "CoreNft";

const LABELS: Record<NftStandard, string> = {
  Nft: "NFT",
  ProgrammableNft: "Programmable NFT",
  CompressedNft: "Compressed NFT",
  CoreNft: "Core asset",
};

/** Reads an API nftType / loanType; anything else (a token loan, an unknown value) is null. */
export function parseNftStandard(value: unknown): NftStandard | null {
  return typeof value === "string" && value in LABELS ? (value as NftStandard) : null;
}

/** What a borrower reads for a standard ("Programmable NFT"). */
export function describeNftStandard(standard: NftStandard): string {
  return LABELS[standard];
}

/**
 * How the NFT is held during a loan, in one sentence (the program's custody per standard), or null when the
 * standard cannot be borrowed against yet.
 */
export function describeCustody(standard: NftStandard): string | null {
  if (standard === "ProgrammableNft")
    return "It stays in your wallet, locked to the loan until you repay; if the loan defaults it goes to the lender.";
  if (standard === "CoreNft")
    return "The loan holds it until you repay; if the loan defaults it goes to the lender.";
  if (standard === "CompressedNft")
    return "The loan holds it until you repay; if the loan defaults it goes to the lender.";
  if (standard === "Nft")
    return "The loan holds it until you repay; if the loan defaults it goes to the lender.";
  return null;
}

/**
 * Why a loan (by its loanType) offers no instant sell, or null when it does: the program sells a classic NFT out of its
 * escrow, a Core asset or a compressed NFT the loan owns, and a programmable NFT the loan holds locked (it moves it to
 * its own account and the market sells it from there): every standard's loan is sold instantly now.
 */
export function getNoSaleNote(_loanType: string): string | null {
  return null;
}

/**
 * Why an NFT (by its standard) cannot be posted in a loan request, or null when it can: a request holds a classic NFT
 * in its escrow and a Core asset or a compressed NFT itself; a programmable NFT's lock could not pass from the request
 * to the lender's loan without the borrower signing again.
 */
export function getNoRequestNote(standard: NftStandard): string | null {
  if (standard === "ProgrammableNft")
    return "A programmable NFT cannot be posted in a loan request: borrow from an offer instead.";
  return null;
}
