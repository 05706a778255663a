import { CURRENCIES } from "@cistern/protocol";
import { TOKEN_PROGRAM_ADDRESS } from "@cistern/sdk";
import { type Address, address, type KeyPairSigner } from "@solana/kit";
import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction } from "@solana-program/token";
import type { ChainClient } from "./chain-client.ts";

/** The treasury's fee token account of one lending currency. */
export interface TreasuryTokenAccount {
  mint: Address;
  symbol: string;
  tokenAccount: Address;
}

/**
 * Creates (idempotently) the treasury's associated token account for every lending currency of the currency
 * table whose mint exists on this cluster, so Repay / Extend always find a fee account. Returns them all.
 */
export async function ensureTreasuryTokenAccounts(input: {
  chain: ChainClient;
  admin: KeyPairSigner;
  treasury: Address;
}): Promise<TreasuryTokenAccount[]> {
  const { chain, admin, treasury } = input;
  const out: TreasuryTokenAccount[] = [];
  for (const currency of Object.values(CURRENCIES)) {
    const mint = address(currency.mint);
    const mintAccount = await chain.fetchAccount(mint);
    if (!mintAccount || mintAccount.owner !== TOKEN_PROGRAM_ADDRESS) continue;
    const [tokenAccount] = await findAssociatedTokenPda({
      owner: treasury,
      mint,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    if (!(await chain.fetchAccount(tokenAccount))) {
      await chain.send(
        `create the treasury ${currency.symbol} token account`,
        [
          getCreateAssociatedTokenIdempotentInstruction({
            payer: admin,
            ata: tokenAccount,
            owner: treasury,
            mint,
          }),
        ],
        admin,
      );
    }
    out.push({ mint, symbol: currency.symbol, tokenAccount });
  }
  return out;
}
