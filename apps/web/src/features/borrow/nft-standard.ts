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
 * How a loan request holds the NFT when that differs from how a loan from an offer holds it (describeCustody), or null:
 * a programmable NFT leaves the wallet for the request (the request, then the lender's loan, owns it), where a loan
 * from an offer leaves it locked in the wallet.
 */
export function getRequestCustodyNote(standard: NftStandard): string | null {
  if (standard === "ProgrammableNft")
    return "A loan request holds it outside your wallet: the request, then the loan, owns it until you cancel or repay.";
  return null;
}
