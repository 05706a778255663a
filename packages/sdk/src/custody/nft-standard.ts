/** The NFT standards the lending program takes as collateral (the spec's loanType values). */
export type NftStandard = "Nft" | "ProgrammableNft" | "CoreNft" | "CompressedNft";

/** Loan.nftType (byte 7) and TakeLoan data byte 121 of each standard. */
export const NFT_TYPE_BYTE: Readonly<Record<NftStandard, number>> = {
  Nft: 0,
  ProgrammableNft: 1,
  CoreNft: 2,
  CompressedNft: 3,
};

/** Loan.nftType / Request.nftType of a programmable NFT the holder PDA owns in its associated token account (a loan
 * request's custody and the loan that fills it): its standard reads ProgrammableNft. */
export const NFT_TYPE_PNFT_HELD = 4;

/** The standard a Loan.nftType byte names (an unknown byte reads as classic: the program writes only these). */
export function nftStandardOf(nftType: number): NftStandard {
  return nftType === 1 || nftType === NFT_TYPE_PNFT_HELD
    ? "ProgrammableNft"
    : nftType === 2
      ? "CoreNft"
      : nftType === 3
        ? "CompressedNft"
        : "Nft";
}

/** A loan's loanType (spec section 3): Token for token collateral, else its NFT's standard. */
export function getLoanType(loan: { isDefi: boolean; nftType: NftStandard }): NftStandard | "Token" {
  return loan.isDefi ? "Token" : loan.nftType;
}
