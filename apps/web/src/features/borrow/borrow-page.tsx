import { formatUnits, SOL_MINT } from "@cistern/protocol";
import { useId, useState } from "react";
import { usePrices } from "../../data/prices.ts";
import {
  formatAmount,
  formatBps,
  formatMoney,
  formatUsd,
  parseAmountInput,
  symbolOf,
} from "../../kit/format.ts";
import { Page, QueryState, RequireWallet, Tabs, useChainNow } from "../../kit/page-kit.tsx";
import { usePageTransaction } from "../../kit/use-page-transaction.ts";
import { useLocationHref } from "../../lib/location.ts";
import { useTokens } from "../pools/pool-data.ts";
import { RequestForm } from "../requests/request-form.tsx";
import {
  useOpenPools,
  useWalletNfts,
  useWalletTokens,
  type WalletNft,
  type WalletToken,
} from "./borrow-data.ts";
import { BorrowForm, type BorrowSubmit } from "./borrow-form.tsx";
import { findOffers, type Prices } from "./borrow-model.ts";
import { describeCustody, describeNftStandard, getRequestCustodyNote } from "./nft-standard.ts";

/** Builder payload of a loan against an NFT. */
export function nftLoanPayload(borrower: string, nftMint: string, request: BorrowSubmit) {
  return {
    borrower,
    pool: request.offer.pool.pubkey,
    nftMint,
    amount: request.amount.toString(),
    duration: request.durationSeconds,
  };
}

/** Builder payload of a loan against tokens. */
export function tokenLoanPayload(
  borrower: string,
  collateralMint: string,
  collateralAmount: bigint,
  request: BorrowSubmit,
) {
  return {
    borrower,
    pool: request.offer.pool.pubkey,
    collateralMint,
    collateralAmount: collateralAmount.toString(),
    amount: request.amount.toString(),
    duration: request.durationSeconds,
  };
}

/** Borrow against the wallet's NFTs or tokens. */
export function BorrowPage() {
  const href = useLocationHref();
  const params = new URL(href).searchParams;
  const [tab, setTab] = useState<"nft" | "token">(params.get("tab") === "token" ? "token" : "nft");
  return (
    <Page
      title="Borrow"
      lead="Borrow SOL or USDC against your NFTs or tokens. Fixed rate, fixed term, no price liquidations: you see every term before signing."
    >
      <Tabs
        label="Collateral type"
        value={tab}
        onChange={(value) => setTab(value)}
        options={[
          { value: "nft", label: "NFTs" },
          { value: "token", label: "Tokens" },
        ]}
      />
      <RequireWallet what="see what you can borrow">
        {(owner) =>
          tab === "nft" ? (
            <NftBorrow owner={owner} preferredPool={params.get("pool")} />
          ) : (
            <TokenBorrow owner={owner} preferredPool={params.get("pool")} />
          )
        }
      </RequireWallet>
    </Page>
  );
}

/** Says why offers may be missing: the pool list or the prices could not be loaded. */
function OffersProblem({ poolsFailed, pricesFailed }: { poolsFailed: boolean; pricesFailed: boolean }) {
  if (!poolsFailed && !pricesFailed) return null;
  return (
    <p className="pg-state pg-error" role="alert" data-testid="offers-problem">
      {poolsFailed
        ? "Pools could not be loaded, so no offers can be shown. Try again in a moment."
        : "Prices are unavailable, so collateral cannot be valued. Try again in a moment."}
    </p>
  );
}

function NftBorrow({ owner, preferredPool }: { owner: string; preferredPool: string | null }) {
  const nfts = useWalletNfts(owner);
  const pools = useOpenPools("nft-pool");
  const prices = usePrices();
  const now = useChainNow();
  const tx = usePageTransaction();
  const [selected, setSelected] = useState<string | null>(null);
  const panelId = useId();
  const priceMap: Prices = prices.data ?? {};
  const offersOf = (nft: WalletNft) =>
    nft.collection === null || nft.floorLamports === null
      ? []
      : findOffers({
          pools: pools.data?.pools ?? [],
          collateralId: nft.collection,
          valueMint: SOL_MINT,
          valueDecimals: 9,
          value: nft.floorLamports,
          prices: priceMap,
          nowSeconds: now,
        });
  return (
    <QueryState
      query={nfts}
      label="your NFTs"
      isEmpty={(list) => list.length === 0}
      empty="This wallet holds no NFTs. Switch to Tokens to borrow against tokens."
    >
      {(list) => {
        const current = list.find((n) => n.mint === selected) ?? null;
        return (
          <>
            <OffersProblem poolsFailed={pools.isError} pricesFailed={prices.isError} />
            <div className="pg-split">
              <ul className="pg-assets" aria-label="Your NFTs" data-testid="nft-list">
                {list.map((nft) => {
                  const best = offersOf(nft)[0];
                  return (
                    <li key={nft.mint}>
                      <button
                        type="button"
                        className={nft.mint === selected ? "pg-asset is-selected" : "pg-asset"}
                        aria-pressed={nft.mint === selected}
                        onClick={() => {
                          setSelected(nft.mint);
                          // On one-column layouts the loan panel sits below the list: bring it into view.
                          if (window.matchMedia?.("(max-width: 760px)").matches) {
                            requestAnimationFrame(() =>
                              document.getElementById(panelId)?.scrollIntoView({ block: "start" }),
                            );
                          }
                        }}
                      >
                        {nft.image ? (
                          <img src={nft.image} alt="" width={56} height={56} loading="lazy" />
                        ) : null}
                        <span className="pg-asset-text">
                          <strong>{nft.name || nft.mint.slice(0, 8)}</strong>
                          <small className="muted">
                            {nft.collectionName ?? "Unknown collection"}
                            {nft.standard !== null ? (
                              <span data-testid="nft-standard"> · {describeNftStandard(nft.standard)}</span>
                            ) : null}
                          </small>
                          <small>
                            Floor{" "}
                            {nft.floorLamports === null
                              ? "unknown"
                              : `${formatAmount(nft.floorLamports, 9)} SOL`}
                            {nft.floorUsd !== null ? ` · ${formatUsd(nft.floorUsd)}` : ""}
                          </small>
                          <small data-testid="best-offer">
                            {best
                              ? `Best offer ${formatMoney(best.maxBorrow, best.pool.currency)} at ${formatBps(best.pool.loanCurve.apr)}`
                              : pools.isPending
                                ? "Looking for offers…"
                                : "No offers"}
                          </small>
                        </span>
                      </button>
                    </li>
                  );
                })}
              </ul>
              <section className="card pg-section" aria-label="Loan" id={panelId}>
                {current ? (
                  <>
                    <h2>Borrow against {current.name}</h2>
                    {current.standard !== null ? (
                      <p className="muted" data-testid="custody-note">
                        {describeNftStandard(current.standard)}. {describeCustody(current.standard)}
                      </p>
                    ) : null}
                    <BorrowForm
                      key={current.mint}
                      offers={offersOf(current)}
                      kind="nft"
                      nftMint={current.mint}
                      nowSeconds={now}
                      collateralLabel="NFT"
                      preferredPool={preferredPool}
                      busy={tx.busy}
                      onSubmit={async (request) => {
                        const signature = await tx.run({
                          action: "Borrow NFT",
                          path: "/nft/take-loan",
                          payload: nftLoanPayload(owner, current.mint, request),
                        });
                        if (signature) setSelected(null);
                      }}
                    />
                    {/* a request holds every standard; a programmable NFT then leaves the wallet (one sentence) */}
                    {current.collection !== null &&
                    getRequestCustodyNote(current.standard ?? "Nft") !== null ? (
                      <p className="pg-small muted" data-testid="request-custody-note">
                        {getRequestCustodyNote(current.standard ?? "Nft")}
                      </p>
                    ) : null}
                    {current.collection !== null ? (
                      <RequestForm
                        key={`request:${current.mint}`}
                        owner={owner}
                        collateral={{
                          mint: current.mint,
                          amount: 1n,
                          isDefi: false,
                          label: current.name || "Your NFT",
                        }}
                        open={offersOf(current).length === 0}
                      />
                    ) : null}
                  </>
                ) : (
                  <p className="muted">Pick an NFT to see its offers and terms.</p>
                )}
              </section>
            </div>
          </>
        );
      }}
    </QueryState>
  );
}

function TokenBorrow({ owner, preferredPool }: { owner: string; preferredPool: string | null }) {
  const tokens = useWalletTokens(owner);
  const catalogue = useTokens();
  const pools = useOpenPools("defi-pool");
  const prices = usePrices();
  const now = useChainNow();
  const tx = usePageTransaction();
  const [mint, setMint] = useState("");
  const [collateralText, setCollateralText] = useState("");
  const priceMap: Prices = prices.data ?? {};
  const accepted = new Set((pools.data?.pools ?? []).flatMap((p) => p.collections.map((c) => c.collection)));
  return (
    <QueryState
      query={tokens}
      label="your tokens"
      isEmpty={(list) => list.length === 0}
      empty="This wallet holds no tokens to borrow against."
    >
      {(list) => {
        const usable = list.filter((t) => accepted.has(t.mint) || pools.isPending);
        const token: WalletToken | undefined = list.find((t) => t.mint === mint) ?? usable[0];
        let collateral: bigint | null = null;
        let collateralError = "";
        if (token) {
          ({ amount: collateral, error: collateralError } = parseAmountInput(collateralText, token.decimals));
          if (collateral !== null && collateral > token.amount)
            collateralError = `You hold ${formatAmount(token.amount, token.decimals)} ${symbolOf(token.mint, catalogue.data)}.`;
        }
        const offers =
          token && collateral !== null && collateralError === ""
            ? findOffers({
                pools: pools.data?.pools ?? [],
                collateralId: token.mint,
                valueMint: token.mint,
                valueDecimals: token.decimals,
                value: collateral,
                prices: priceMap,
                nowSeconds: now,
              })
            : [];
        return (
          <section className="card pg-section" aria-label="Token loan">
            <OffersProblem poolsFailed={pools.isError} pricesFailed={prices.isError} />
            {usable.length === 0 ? (
              <p className="pg-state pg-empty" data-testid="state-empty">
                No open pool accepts the tokens in this wallet.
              </p>
            ) : (
              <div className="pg-row">
                <label>
                  Collateral token
                  <select value={token?.mint ?? ""} onChange={(e) => setMint(e.target.value)}>
                    {usable.map((t) => (
                      <option key={t.mint} value={t.mint}>
                        {symbolOf(t.mint, catalogue.data)} — {formatAmount(t.amount, t.decimals)} held
                      </option>
                    ))}
                  </select>
                </label>
                <label>
                  Collateral amount
                  <span className="pg-input-group">
                    <input
                      name="collateral"
                      inputMode="decimal"
                      value={collateralText}
                      aria-invalid={collateralError !== ""}
                      onChange={(e) => setCollateralText(e.target.value)}
                    />
                    {token ? (
                      <button
                        type="button"
                        className="button pg-max"
                        onClick={() => setCollateralText(formatUnits(token.amount, token.decimals))}
                      >
                        Max
                      </button>
                    ) : null}
                  </span>
                </label>
              </div>
            )}
            <p className="error-text" role="alert" data-testid="collateral-error">
              {collateralError}
            </p>
            {token && collateral !== null && collateralError === "" ? (
              <BorrowForm
                key={`${token.mint}:${collateral}`}
                offers={offers}
                kind="token"
                nowSeconds={now}
                collateralLabel={`${symbolOf(token.mint, catalogue.data)} collateral`}
                preferredPool={preferredPool}
                busy={tx.busy}
                onSubmit={async (request) => {
                  const signature = await tx.run({
                    action: "Borrow Tokens",
                    path: "/defi/take-loan",
                    payload: tokenLoanPayload(owner, token.mint, collateral, request),
                  });
                  if (signature) setCollateralText("");
                }}
              />
            ) : null}
            {token && collateral !== null && collateralError === "" ? (
              <RequestForm
                key={`request:${token.mint}`}
                owner={owner}
                collateral={{
                  mint: token.mint,
                  amount: collateral,
                  isDefi: true,
                  label: `Your ${formatAmount(collateral, token.decimals)} ${symbolOf(token.mint, catalogue.data)}`,
                }}
                open={offers.length === 0}
              />
            ) : token && collateral === null ? (
              <p className="muted">
                Enter how much {symbolOf(token.mint, catalogue.data)} to put up as collateral.
              </p>
            ) : null}
          </section>
        );
      }}
    </QueryState>
  );
}
