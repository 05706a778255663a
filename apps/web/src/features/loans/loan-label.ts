import type { Loan } from "@cistern/protocol";
import { useNftAssets } from "../../data/nft-assets.ts";
import { formatAmount, formatMoney } from "../../kit/format.ts";
import { useCollateralNamer } from "../pools/collateral-name.tsx";
import { useTokens } from "../pools/pool-data.ts";

/** What a loan is on, in words and (for an NFT) its image. */
export interface LoanCollateralLabel {
  /** "Aqua Ape #12", "1,000 JUP", or the collection's name while the NFT's own name is unknown. */
  collateral: string;
  /** The NFT's image URL; "" for tokens or when unknown. */
  image: string;
  /** The NFT's own name; "" for tokens or when unknown. */
  nftName: string;
}

/**
 * A loan's collateral in words from what is known of it: an NFT by its own name (else its collection's), tokens by
 * their amount and symbol (else the catalogue's name for the collateral).
 */
export function labelLoanCollateral(
  loan: Loan,
  known: {
    nft?: { name: string; image: string } | undefined;
    token?: { symbol: string; decimals: number } | undefined;
    collectionName: string;
  },
): LoanCollateralLabel {
  if (loan.isDefi) {
    if (loan.collateralAmount !== undefined && known.token !== undefined && known.token.symbol !== "")
      return {
        collateral: `${formatAmount(loan.collateralAmount, known.token.decimals)} ${known.token.symbol}`,
        image: "",
        nftName: "",
      };
    return { collateral: known.collectionName, image: "", nftName: "" };
  }
  if (known.nft !== undefined)
    return { collateral: known.nft.name, image: known.nft.image, nftName: known.nft.name };
  return { collateral: known.collectionName, image: "", nftName: "" };
}

/** "20 USDC loan on Aqua Ape #12": the loan named by its amount and collateral. */
export function describeLoan(loan: Loan, label: LoanCollateralLabel): string {
  return `${formatMoney(loan.amount, loan.currency)} loan on ${label.collateral}`;
}

/** Labels for `loans` (NFT names and images from the API, token amounts from the catalogue). */
export function useLoanLabels(loans: readonly Loan[]): (loan: Loan) => LoanCollateralLabel {
  const nfts = useNftAssets(loans.filter((l) => !l.isDefi).map((l) => l.collateral));
  const tokens = useTokens();
  const name = useCollateralNamer();
  return (loan) =>
    labelLoanCollateral(loan, {
      nft: nfts.get(loan.collateral),
      token: tokens.data?.[loan.collateral],
      collectionName: name(loan.collection),
    });
}
