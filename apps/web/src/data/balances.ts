import { SOL_MINT } from "@cistern/protocol";
import { useConnection, useWallet } from "@solana/wallet-adapter-react";
import { PublicKey } from "@solana/web3.js";
import { useQuery } from "@tanstack/react-query";

/** SPL Token program (classic). */
export const TOKEN_PROGRAM_ID = new PublicKey("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");

export interface TokenBalance {
  mint: string;
  /** Base units. */
  amount: bigint;
  decimals: number;
}

export interface WalletBalances {
  lamports: bigint;
  tokens: TokenBalance[];
}

interface ParsedTokenInfo {
  mint: string;
  tokenAmount: { amount: string; decimals: number };
}

/** SOL and token balances of the connected wallet (scope "balance"). Failures are logged only. */
export function useWalletBalances() {
  const { connection } = useConnection();
  const { publicKey } = useWallet();
  return useQuery({
    queryKey: ["balance", publicKey?.toBase58() ?? null, connection.rpcEndpoint],
    enabled: publicKey !== null,
    queryFn: async (): Promise<WalletBalances> => {
      const owner = publicKey!;
      try {
        const [lamports, accounts] = await Promise.all([
          connection.getBalance(owner, "confirmed"),
          connection.getParsedTokenAccountsByOwner(owner, { programId: TOKEN_PROGRAM_ID }, "confirmed"),
        ]);
        const tokens = accounts.value
          .map((account) => {
            const info = (account.account.data as { parsed?: { info?: ParsedTokenInfo } }).parsed?.info;
            if (!info) return null;
            return {
              mint: info.mint,
              amount: BigInt(info.tokenAmount.amount),
              decimals: info.tokenAmount.decimals,
            };
          })
          .filter((t): t is TokenBalance => t !== null && t.amount > 0n)
          .sort((a, b) => a.mint.localeCompare(b.mint));
        return { lamports: BigInt(lamports), tokens };
      } catch (error) {
        console.error("Balance refresh failed", error);
        throw error;
      }
    },
    retry: false,
  });
}

/** Wallet balance of a mint (SOL: lamports), base units; undefined while unknown. */
export function useCurrencyBalance(mint: string): bigint | undefined {
  const balances = useWalletBalances();
  if (!balances.data) return undefined;
  if (mint === SOL_MINT) return balances.data.lamports;
  return balances.data.tokens.find((t) => t.mint === mint)?.amount ?? 0n;
}
