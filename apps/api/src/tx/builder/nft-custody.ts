import {
  type AccountReader,
  type LoanAccount,
  type NftCustody,
  type NftStandard,
  readNftCustody,
} from "@cistern/sdk";
import type { Address } from "@solana/kit";
import type { TxContext } from "../tx-context.ts";
import { unprocessable } from "../tx-errors.ts";

/** The SDK's chain read over the builder's batched account reader (what a standard's custody needs). */
export function chainReader(tx: TxContext): AccountReader {
  return (addresses) => tx.state.getAccounts(addresses);
}

/** The custody of `mint` held in `tokenAccount`, read from the chain now (metadata, rule set, record PDAs). */
export function readCustody(tx: TxContext, mint: Address, tokenAccount: Address): Promise<NftCustody> {
  return readNftCustody(chainReader(tx), { mint, tokenAccount });
}

/** The custody of an ongoing loan's NFT (a pNFT stays in the token account the loan records as its escrow). */
export function readLoanCustody(tx: TxContext, loan: LoanAccount): Promise<NftCustody> {
  return loan.isDefi || loan.nftType === "Nft"
    ? Promise.resolve({ standard: "Nft" })
    : readCustody(tx, loan.collateralMint, loan.escrow);
}

/**
 * Refuses (422) an ending the program does not take yet for a programmable NFT or a Core asset (Extend, Refinance,
 * instant and market sell: the program answers InvalidCollateral); repay and liquidation work for every standard.
 */
export function requireClassicCustody(loan: LoanAccount, what: string): void {
  if (!loan.isDefi) refuseUnlessClassic(loan.nftType, `${what} a loan against`, "repay it instead");
}

/** Refuses (422) `standard` when it is not a classic NFT: "<what> <a programmable NFT> is not available yet; <instead>". */
export function refuseUnlessClassic(standard: NftStandard, what: string, instead: string): void {
  if (standard === "Nft") return;
  const named = standard === "ProgrammableNft" ? "a programmable NFT" : "a Core asset";
  throw unprocessable(`${what} ${named} is not available yet; ${instead}`);
}
