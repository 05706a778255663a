import { BUBBLEGUM_PROGRAM_ADDRESS, INSTRUCTION_TAG, TOKEN_METADATA_PROGRAM_ADDRESS } from "@cistern/sdk";
import type { Instruction } from "@solana/kit";
import { ADDRESS_LOOKUP_TABLE_PROGRAM } from "../chain/lookup-table-account.ts";
import {
  ASSOCIATED_TOKEN_PROGRAM,
  COMPUTE_BUDGET_PROGRAM,
  SYSTEM_PROGRAM,
  TOKEN_PROGRAM,
} from "./wire-instructions.ts";

/**
 * Compute-unit estimates per lending instruction: the measured figures (programs/lending/README.md, LiteSVM)
 * roughly doubled, because the classic SPL Token program on a real cluster costs a few thousand CU more per
 * transfer and the PDA bump searches vary.
 */
const LENDING_CU: Record<number, number> = {
  [INSTRUCTION_TAG.InitializeConfig]: 12_000,
  [INSTRUCTION_TAG.UpdateConfig]: 4_000,
  [INSTRUCTION_TAG.CreateBank]: 30_000,
  [INSTRUCTION_TAG.Deposit]: 10_000,
  [INSTRUCTION_TAG.Withdraw]: 10_000,
  [INSTRUCTION_TAG.CreatePool]: 15_000,
  [INSTRUCTION_TAG.UpdatePool]: 6_000,
  [INSTRUCTION_TAG.ClosePool]: 4_000,
  [INSTRUCTION_TAG.TakeLoan]: 35_000,
  [INSTRUCTION_TAG.Repay]: 25_000,
  [INSTRUCTION_TAG.Extend]: 40_000,
  [INSTRUCTION_TAG.Liquidate]: 15_000,
};

/** Migrate: 2,623 CU for a pool and about 2,400 more per loan measured (cu-table), doubled likewise. */
const MIGRATE_CU = { pool: 6_000, perLoan: 5_000 };

/**
 * A programmable NFT's custody runs Token Metadata (and its rule set through Token Auth Rules) inside the lending
 * instruction: measured with the real binaries (LiteSVM) take-loan 151,634-171,619 CU (Delegate, Lock and the rule
 * set's Validate of both liquidation transfers), repay 62,911-91,422 (a filled request's: below), liquidate
 * 304,792-325,764 (two Transfer v1 and
 * a token account creation); these carry headroom (rule sets and account states vary), the liquidation's total
 * staying near the 400,000 it needs.
 */
const PROGRAMMABLE_CU: Record<number, number> = {
  [INSTRUCTION_TAG.TakeLoan]: 195_000,
  // a filled request's pNFT (nftType 4, the loan PDA owns it): Transfer v1 to the borrower's associated token account
  // (created if need be) and the loan's account closed, 134,000-143,000 measured; the escrowless repay far less
  [INSTRUCTION_TAG.Repay]: 200_000,
  // loan requests (nftType 4): Transfer v1 into, between and out of the holders' accounts, with the rule set asked
  // (post 191,000-206,000, fill 174,000-185,000, cancel 132,000-146,000 measured); the builders simulate them when a
  // rule set governs the pNFT, these are the limit otherwise
  [INSTRUCTION_TAG.PostRequest]: 260_000,
  [INSTRUCTION_TAG.FillRequest]: 260_000,
  [INSTRUCTION_TAG.CancelRequest]: 200_000,
  [INSTRUCTION_TAG.Liquidate]: 360_000,
  // extend and refinance: unlock, revoke, delegate, lock and the rule set's Validate (204,000-225,000 measured)
  [INSTRUCTION_TAG.Extend]: 260_000,
  [INSTRUCTION_TAG.Refinance]: 260_000,
  // an instant sell: unlock, the move into the loan PDA's account and the market's two Transfer v1 (499,000-542,000)
  [INSTRUCTION_TAG.MarketSell]: 650_000,
  // a mortgage: the market's BuyPnft (Transfer v1, the buyer's account and record created), then delegate, lock and
  // the rule set's Validate (305,000-337,000 measured)
  [INSTRUCTION_TAG.TakeMortgage]: 420_000,
  // an auto-sell: the same moves, the loan PDA's emptied account closed (483,000-549,000 measured; a filled request's
  // pNFT, sold from the loan PDA's account without the move, 326,000-340,000)
  [INSTRUCTION_TAG.LiquidateSell]: 650_000,
};

/**
 * A compressed NFT's custody runs Bubblegum's Transfer (and SPL Account Compression's proof check) inside the
 * lending instruction: measured with the real binaries (LiteSVM, a depth-14 tree with canopy 11, LAYOUT.md) take-loan
 * 64,100-67,200 CU, repay 60,300-63,300, liquidate 60,000-61,500; doubled less a little for headroom (a tree with a
 * smaller canopy passes a longer proof).
 */
const COMPRESSED_CU: Record<number, number> = {
  [INSTRUCTION_TAG.TakeLoan]: 120_000,
  [INSTRUCTION_TAG.Repay]: 110_000,
  [INSTRUCTION_TAG.Liquidate]: 110_000,
  // the leaf moves old loan PDA -> new one (63,500-69,600 measured), request PDA <-> borrower or loan PDA (post
  // 61,900-64,900, fill 62,900-65,900, cancel 59,700-67,200)
  [INSTRUCTION_TAG.Extend]: 130_000,
  [INSTRUCTION_TAG.Refinance]: 130_000,
  [INSTRUCTION_TAG.PostRequest]: 120_000,
  [INSTRUCTION_TAG.FillRequest]: 120_000,
  [INSTRUCTION_TAG.CancelRequest]: 110_000,
  // the sale endings: the market's SellCnftToBid by CPI, Bubblegum's Transfer inside it (instant sell
  // 69,700-77,300, auto-sell 68,200-75,800 measured)
  [INSTRUCTION_TAG.MarketSell]: 150_000,
  [INSTRUCTION_TAG.LiquidateSell]: 150_000,
};

/**
 * The NFT market's programmable NFT instructions (tags 10-13; they name Token Metadata): Transfer v1 with the rule
 * set inside, measured with the real binaries (LiteSVM, programs/nft-market/README.md) ListPnft about 150,000 CU,
 * DelistPnft 130,000, BuyPnft 148,000, SellPnftToBid 297,000 (two Transfer v1, through the bid's token account);
 * with headroom for other rule sets.
 */
const MARKET_PNFT_CU: Record<number, number> = { 10: 200_000, 11: 180_000, 12: 200_000, 13: 380_000 };

/**
 * A venue instruction that moves a compressed NFT (the NFT market's ListCnft, DelistCnft, BuyCnft, SellCnftToBid:
 * Bubblegum's Transfer inside): measured with the real binaries (LiteSVM, the demo's tree, programs/nft-market
 * LAYOUT.md) 59,500-67,200 CU; doubled for headroom (a longer proof, the bump searches).
 */
const COMPRESSED_VENUE_CU = 130_000;

const movesLeaf = (ix: Instruction) =>
  ix.accounts?.some((a) => a.address === BUBBLEGUM_PROGRAM_ADDRESS) ?? false;

function lendingCu(ix: Instruction): number {
  const tag = ix.data?.[0] ?? -1;
  if (tag === INSTRUCTION_TAG.Migrate)
    return MIGRATE_CU.pool + MIGRATE_CU.perLoan * Math.max(0, (ix.accounts?.length ?? 3) - 3);
  // the custody block names Token Metadata only for a programmable NFT
  if (ix.accounts?.some((a) => a.address === TOKEN_METADATA_PROGRAM_ADDRESS) && PROGRAMMABLE_CU[tag])
    return PROGRAMMABLE_CU[tag];
  if (movesLeaf(ix) && COMPRESSED_CU[tag]) return COMPRESSED_CU[tag];
  return LENDING_CU[tag] ?? 50_000;
}

/**
 * Other programs: compute budget, system transfer, ATA create (creating one: the worst case), token calls,
 * lookup table create/extend (about 10,400 CU measured on localnet for a create).
 */
function otherCu(ix: Instruction): number {
  switch (ix.programAddress) {
    case COMPUTE_BUDGET_PROGRAM:
      return 150;
    case SYSTEM_PROGRAM:
      return 300;
    case ASSOCIATED_TOKEN_PROGRAM:
      return 30_000;
    case TOKEN_PROGRAM:
      return 6_000;
    case ADDRESS_LOOKUP_TABLE_PROGRAM:
      return 20_000;
    default:
      if (movesLeaf(ix)) return COMPRESSED_VENUE_CU;
      if (ix.accounts?.some((a) => a.address === TOKEN_METADATA_PROGRAM_ADDRESS))
        return MARKET_PNFT_CU[ix.data?.[0] ?? -1] ?? 50_000;
      return 50_000;
  }
}

/**
 * Compute-unit limit for a transaction of `instructions` (compute budget instructions included):
 * per-instruction estimates plus 10% and 5,000 CU of headroom, at most 1,400,000.
 */
export function estimateComputeUnits(instructions: readonly Instruction[], lendingProgram: string): number {
  let total = 0;
  for (const ix of instructions) {
    if (ix.programAddress === lendingProgram) total += lendingCu(ix);
    else total += otherCu(ix);
  }
  return Math.min(1_400_000, Math.ceil(total * 1.1) + 5_000);
}
