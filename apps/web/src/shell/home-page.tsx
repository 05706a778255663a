import { formatNumber2, SOL_MINT, shortenAddress } from "@cistern/protocol";
import { useWallet } from "@solana/wallet-adapter-react";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useAppContext } from "../app-context.ts";
import { useWalletBalances } from "../data/balances.ts";
import { useChainPerformance, useChainStatus } from "../data/chain-status.ts";
import { useNftNames } from "../data/nft-names.ts";
import { usePrices } from "../data/prices.ts";
import { refreshScopes } from "../data/refresh.ts";
import { useTokenNames } from "../data/token-names.ts";
import { useWalletNfts } from "../features/borrow/borrow-data.ts";
import { describeNftStandard } from "../features/borrow/nft-standard.ts";
import { formatAmount, formatUsdValue } from "../kit/format.ts";
import { showToast } from "../toasts/toast-store.ts";
import { DEV_WALLET_NAME, requestLocalnetFaucet } from "../wallet/dev-wallet-adapter.ts";
import { openWalletModal } from "../wallet/wallet-modal-store.ts";
import { MarketCard } from "./market-card.tsx";

function ChainCard() {
  const { config, rpcUrl } = useAppContext();
  const status = useChainStatus();
  const performance = useChainPerformance();
  return (
    <section className="card" aria-labelledby="chain-title">
      <h2 id="chain-title">Chain status</h2>
      {status.isPending ? <p className="muted">Connecting to {rpcUrl}…</p> : null}
      {status.isError ? (
        <p className="error-text" data-testid="chain-error">
          RPC node not reachable at {rpcUrl}
        </p>
      ) : null}
      {status.data ? (
        <dl className="stats" data-testid="chain-status">
          <div>
            <dt>Cluster</dt>
            <dd>{config.cluster}</dd>
          </div>
          <div>
            <dt>Slot</dt>
            <dd>{status.data.slot.toLocaleString("en-US")}</dd>
          </div>
          <div>
            <dt>Block height</dt>
            <dd>{status.data.blockHeight.toLocaleString("en-US")}</dd>
          </div>
          <div>
            <dt>TPS{performance.data?.source === "fallback" ? " (estimate)" : ""}</dt>
            <dd data-testid="tps">
              {performance.data ? Math.round(performance.data.tps).toLocaleString("en-US") : "…"}
            </dd>
          </div>
        </dl>
      ) : null}
    </section>
  );
}

function FaucetButton({ address }: { address: string }) {
  const { rpcUrl } = useAppContext();
  const queryClient = useQueryClient();
  const [pending, setPending] = useState(false);
  return (
    <button
      type="button"
      className="button"
      disabled={pending}
      data-testid="faucet"
      onClick={async () => {
        setPending(true);
        try {
          await requestLocalnetFaucet(rpcUrl, address);
          showToast({
            kind: "success",
            title: "Wallet funded",
            description: "SOL, USDC, demo tokens and NFTs arrived.",
          });
          await refreshScopes(queryClient, ["balance", "assets"]);
        } catch (error) {
          showToast({
            kind: "error",
            title: "Faucet failed",
            description: error instanceof Error ? error.message : String(error),
          });
        } finally {
          setPending(false);
        }
      }}
    >
      {pending ? "Funding…" : "Fund from localnet faucet"}
    </button>
  );
}

/** " ≈ $12.34" beside a balance, when the token has a price. */
function UsdValue({
  amount,
  decimals,
  price,
}: {
  amount: bigint;
  decimals: number;
  price: string | undefined;
}) {
  const text = decimals === 0 ? "" : formatUsdValue(amount, decimals, price);
  return text === "" ? null : <small className="muted"> {text}</small>;
}

function WalletCard() {
  const { config } = useAppContext();
  const { publicKey, wallet } = useWallet();
  const balances = useWalletBalances();
  const prices = usePrices();
  const tokenNames = useTokenNames().data;
  const nftMints = (balances.data?.tokens ?? []).filter((t) => t.decimals === 0).map((t) => t.mint);
  const nftNames = useNftNames(nftMints).data;
  // NFTs of every standard: Core assets and compressed NFTs have no token account, so only the API lists them
  const walletNfts = useWalletNfts(publicKey?.toBase58() ?? "", { enabled: publicKey !== null }).data ?? [];
  const standards = new Map(walletNfts.flatMap((n) => (n.standard ? [[n.mint, n.standard] as const] : [])));
  const apiNames = Object.fromEntries(walletNfts.filter((n) => n.name !== "").map((n) => [n.mint, n.name]));
  const names: Record<string, string> = { ...apiNames, ...nftNames, ...tokenNames };
  if (!publicKey) {
    return (
      <section className="card" aria-labelledby="wallet-title">
        <h2 id="wallet-title">Your wallet</h2>
        <p className="muted">Connect a wallet to see your balances.</p>
        <button type="button" className="button button-primary" onClick={openWalletModal}>
          Connect Wallet
        </button>
      </section>
    );
  }
  const address = publicKey.toBase58();
  const isDevWallet = wallet?.adapter.name === DEV_WALLET_NAME;
  return (
    <section className="card" aria-labelledby="wallet-title">
      <h2 id="wallet-title">Your wallet</h2>
      <p className="muted" title={address}>
        {wallet?.adapter.name} · {shortenAddress(address)}
      </p>
      {balances.isError ? <p className="error-text">Balances could not be loaded.</p> : null}
      {balances.data ? (
        <table className="balances" data-testid="balances">
          <tbody>
            <tr>
              <th scope="row">SOL</th>
              <td>
                {formatAmount(balances.data.lamports, 9)}
                <UsdValue amount={balances.data.lamports} decimals={9} price={prices.data?.[SOL_MINT]} />
              </td>
            </tr>
            {[
              ...balances.data.tokens,
              ...walletNfts
                .filter((n) => !balances.data.tokens.some((t) => t.mint === n.mint))
                .map((n) => ({ mint: n.mint, amount: 1n, decimals: 0 })),
            ]
              // Tokens before NFTs, each by name; unnamed mints last.
              .sort(
                (a, b) =>
                  Number(a.decimals === 0) - Number(b.decimals === 0) ||
                  Number(!(a.mint in names)) - Number(!(b.mint in names)) ||
                  (names[a.mint] ?? a.mint).localeCompare(names[b.mint] ?? b.mint),
              )
              .map((token) => (
                <tr key={token.mint}>
                  <th scope="row" title={token.mint}>
                    {names[token.mint] ?? shortenAddress(token.mint)}
                    {standards.has(token.mint) ? (
                      <small className="muted"> · {describeNftStandard(standards.get(token.mint)!)}</small>
                    ) : null}
                  </th>
                  <td>
                    {formatAmount(token.amount, token.decimals)}
                    <UsdValue
                      amount={token.amount}
                      decimals={token.decimals}
                      price={prices.data?.[token.mint]}
                    />
                  </td>
                </tr>
              ))}
          </tbody>
        </table>
      ) : null}
      {config.cluster === "localnet" && isDevWallet ? <FaucetButton address={address} /> : null}
    </section>
  );
}

function PricesCard() {
  const prices = usePrices();
  const names = useTokenNames().data ?? {};
  const entries = Object.entries(prices.data ?? {});
  return (
    <section className="card" aria-labelledby="prices-title">
      <h2 id="prices-title">Prices</h2>
      {prices.isPending ? <p className="muted">Loading prices…</p> : null}
      {prices.isError ? <p className="muted">Prices are unavailable: the API is not reachable.</p> : null}
      {entries.length > 0 ? (
        <table className="balances" data-testid="prices">
          <tbody>
            {entries.map(([mint, price]) => (
              <tr key={mint}>
                <th scope="row" title={mint}>
                  {names[mint] ?? shortenAddress(mint)}
                </th>
                <td>${formatNumber2(Number(price))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {prices.isSuccess && entries.length === 0 ? <p className="muted">No prices published yet.</p> : null}
    </section>
  );
}

/** The home page: what the app can show today, live — chain status, wallet balances and prices. */
export function HomePage() {
  return (
    <main className="page">
      <section className="hero">
        <h1>Effortless Token &amp; NFT Lending on Solana</h1>
        <p>Borrow against your tokens and NFTs, or lend from pools. No price-based liquidations.</p>
      </section>
      <div className="cards">
        <MarketCard />
        <WalletCard />
        <PricesCard />
        <ChainCard />
      </div>
    </main>
  );
}

/** Shown for paths that have no page yet. */
export function NotFoundPage() {
  return (
    <main className="page">
      <section className="hero">
        <h1>Page not found</h1>
        <p>
          <a href="/">Back to the home page</a>
        </p>
      </section>
    </main>
  );
}
