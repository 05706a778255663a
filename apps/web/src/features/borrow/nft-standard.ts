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

/** How the NFT is held during a loan, in one sentence (the program's custody per standard). */
export function describeCustody(standard: NftStandard): string {
  return standard === "ProgrammableNft"
    ? "It stays in your wallet, locked to the loan until you repay; if the loan defaults it goes to the lender."
    : "The loan holds it until you repay; if the loan defaults it goes to the lender.";
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
