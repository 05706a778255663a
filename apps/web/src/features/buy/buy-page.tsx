import { describeErrorForUser, parseTransactionCosts, SOL_MINT } from "@cistern/protocol";
import { useWallet } from "@solana/wallet-adapter-react";
import { useId, useState } from "react";
import { useCurrencyBalance } from "../../data/balances.ts";
import { useNftAssets } from "../../data/nft-assets.ts";
import { getCostTerms } from "../../kit/cost-terms.ts";
import { formatBps, formatDateTime, formatMoney } from "../../kit/format.ts";
import { Page, QueryState, RequireWallet, TermsList, useChainNow } from "../../kit/page-kit.tsx";
import { usePageTransaction } from "../../kit/use-page-transaction.ts";
import { describeNftStandard } from "../borrow/nft-standard.ts";
import { useCollateralNamer } from "../pools/collateral-name.tsx";
import { NftImage } from "../pools/nft-figure.tsx";
import {
  getMortgageDurationsDays,
  type MortgageListing,
  useMortgageListings,
  useMortgageTerms,
} from "./buy-data.ts";

/**
 * Buy now, pay later: NFTs for sale, every standard on one list, each bought outright at the price shown (POST
 * /nft/buy) or, when a pool finances it, with a mortgage (its terms before signing).
 */
export function BuyPage() {
  const listings = useMortgageListings();
  const name = useCollateralNamer();
  const nfts = useNftAssets((listings.data ?? []).map((item) => item.listing.mint));
  const [chosen, setChosen] = useState<string | null>(null);
  const { publicKey } = useWallet();
  const me = publicKey?.toBase58();
  const bought = () => {
    setChosen(null);
    void listings.refetch();
  };
  return (
    <Page
      title="Buy now, pay later"
      lead="Buy an NFT with a down payment and a fixed-term loan from a lender's pool. The NFT stays locked until you repay; unpaid after the grace period, the lender takes it and you lose the down payment. No price liquidations."
    >
      <QueryState
        query={listings}
        label="NFTs for sale"
        isEmpty={(l) => l.length === 0}
        empty="No NFT is for sale right now."
      >
        {(list) => (
          <ul className="pg-grid" aria-label="NFTs for sale" data-testid="mortgage-listings">
            {list.map((item) => (
              <li
                key={item.listing.mint}
                className="card pg-pool-card"
                style={chosen?.endsWith(item.listing.mint) ? { gridColumn: "1 / -1" } : undefined}
                data-testid="mortgage-listing"
              >
                <div className="pg-nft-line">
                  <NftImage asset={nfts.get(item.listing.mint)} size={56} />
                  <div>
                    <h3 data-testid="listing-name">
                      {nfts.get(item.listing.mint)?.name ?? name(item.listing.collection)}
                    </h3>
                    {nfts.has(item.listing.mint) ? (
                      <small className="muted" data-testid="listing-collection">
                        {name(item.listing.collection)}
                        {standardNote(item)}
                      </small>
                    ) : null}
                  </div>
                </div>
                <p>
                  <strong data-testid="listing-price">
                    {formatMoney(BigInt(item.listing.price), item.listing.currency, "up")}
                  </strong>{" "}
                  {financeable(item) ? (
                    <span className="muted pg-small">
                      from {formatBps(item.pools[0]!.mortgageAprBps)} APR
                    </span>
                  ) : null}
                </p>
                {financeable(item) ? (
                  <DownPayment item={item} />
                ) : (
                  <p className="muted pg-small" data-testid="mortgage-card-down">
                    A loan cannot buy {standardName(item)} yet; you can buy it outright.
                  </p>
                )}
                {item.listing.seller === me ? (
                  <p className="muted pg-small" data-testid="own-listing">
                    Your listing.
                  </p>
                ) : chosen === null || !chosen.endsWith(item.listing.mint) ? (
                  <div className="pg-buttons">
                    {financeable(item) ? (
                      <button
                        type="button"
                        className="button button-primary"
                        onClick={() => setChosen(`loan:${item.listing.mint}`)}
                        data-testid="mortgage-choose"
                      >
                        Buy with a loan
                      </button>
                    ) : null}
                    <button
                      type="button"
                      className={financeable(item) ? "button" : "button button-primary"}
                      onClick={() => setChosen(`now:${item.listing.mint}`)}
                      data-testid="buy-now-choose"
                    >
                      Buy now
                    </button>
                  </div>
                ) : null}
                {chosen === `loan:${item.listing.mint}` ? (
                  <RequireWallet what="buy with a loan">
                    {(owner) => <MortgagePanel owner={owner} item={item} onDone={() => setChosen(null)} />}
                  </RequireWallet>
                ) : null}
                {chosen === `now:${item.listing.mint}` ? (
                  <RequireWallet what="buy it">
                    {(owner) => (
                      <BuyNowPanel
                        owner={owner}
                        item={item}
                        onCancel={() => setChosen(null)}
                        onBought={bought}
                      />
                    )}
                  </RequireWallet>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </QueryState>
    </Page>
  );
}

/**
 * Whether a mortgage can buy this listing: a pool lends on it and TakeMortgage takes a classic NFT (into the loan's
 * escrow), a Core asset (the loan PDA its new owner) or a pNFT (into the buyer's wallet, locked to the loan); a
 * compressed NFT: not yet.
 */
function financeable(item: MortgageListing): boolean {
  return item.pools.length > 0 && item.listing.standard !== "compressed";
}

/** " · Core asset" after a listed NFT's collection when it is not a classic NFT (nothing for a classic one). */
function standardNote(item: MortgageListing): string {
  const standard = item.listing.standard ?? "classic";
  return standard === "classic" ? "" : ` · ${describeNftStandard(LISTED_STANDARDS[standard])}`;
}

/** The market's names of the standards as the API names them (describeNftStandard's). */
const LISTED_STANDARDS = {
  classic: "Nft",
  programmable: "ProgrammableNft",
  core: "CoreNft",
  compressed: "CompressedNft",
} as const;

/** What a loan cannot buy on a card without one: a compressed NFT by its standard, any other NFT (no pool finances
 * it) as "this NFT". */
function standardName(item: MortgageListing): string {
  return item.listing.standard === "compressed" ? "a compressed NFT" : "this NFT";
}

/**
 * An outright purchase at the listed price (POST /nft/buy, whatever the NFT's standard: the builder takes a
 * compressed NFT's proof from the asset index when the buyer signs): the price shown is the most taken.
 */
function BuyNowPanel({
  owner,
  item,
  onCancel,
  onBought,
}: {
  owner: string;
  item: MortgageListing;
  onCancel(): void;
  onBought(): void;
}) {
  const tx = usePageTransaction();
  // undefined while the wallet's balance loads: the chain refuses a short payment anyway
  const held = useCurrencyBalance(item.listing.currency);
  const price = BigInt(item.listing.price);
  const money = formatMoney(price, item.listing.currency, "up");
  const short = held !== undefined && price > held;
  return (
    <section className="pg-extend" aria-label="Buy now" data-testid="buy-now-panel">
      <p className="pg-small" data-testid="buy-now-sentence">
        You pay {money} now and the NFT is yours, in your wallet. If the seller raises the price before your
        transaction lands, nothing is taken.
      </p>
      {short ? (
        <p className="error-text" role="alert" data-testid="buy-now-short">
          You hold {formatMoney(held ?? 0n, item.listing.currency)}; the price is {money}.
        </p>
      ) : null}
      <div className="pg-buttons">
        <button
          type="button"
          className="button button-primary"
          disabled={tx.busy || short}
          onClick={async () => {
            const signature = await tx.run({
              action: "Buy NFT",
              path: "/nft/buy",
              payload: { buyer: owner, nftMint: item.listing.mint, maxPrice: item.listing.price },
            });
            if (signature) onBought();
          }}
          data-testid="buy-now-submit"
        >
          Pay {money}
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </section>
  );
}

/**
 * What the buyer pays now on this listing: the down payment of the exact mortgage quote (the API's quoteMortgage,
 * the function the TakeMortgage builder itself runs: the rule-book's most the pool lends, at most its LTV of the
 * lower of the oracle's value and the price), never the pool's LTV alone.
 */
function DownPayment({ item }: { item: MortgageListing }) {
  const { publicKey } = useWallet();
  if (publicKey === null)
    return (
      <p className="muted pg-small" data-testid="mortgage-card-down">
        Connect a wallet to see the down payment.
      </p>
    );
  return <QuotedDownPayment buyer={publicKey.toBase58()} item={item} />;
}

function QuotedDownPayment({ buyer, item }: { buyer: string; item: MortgageListing }) {
  const durations = getMortgageDurationsDays(Math.max(...item.pools.map((p) => p.maxDurationSeconds)));
  const terms = useMortgageTerms({
    buyer,
    mint: item.listing.mint,
    durationSeconds: (durations[0] ?? 7) * 86_400,
  });
  const t = terms.data;
  if (terms.error)
    return (
      <p className="muted pg-small" data-testid="mortgage-card-down">
        No pool finances it for you right now.
      </p>
    );
  if (t === undefined) return <p className="muted pg-small">Getting the down payment…</p>;
  const price = BigInt(t.price);
  // share financed, in basis points, rounded down (the buyer is never told more is financed than is)
  const financedBps = price > 0n ? Number((BigInt(t.principal) * 10_000n) / price) : 0;
  return (
    <p className="pg-small" data-testid="mortgage-card-down">
      {formatMoney(BigInt(t.downPayment), t.currency, "up")} down,{" "}
      {formatMoney(BigInt(t.principal), t.currency)} financed ({formatBps(financedBps)} of the price)
    </p>
  );
}

function MortgagePanel({ owner, item, onDone }: { owner: string; item: MortgageListing; onDone(): void }) {
  const ids = useId();
  const now = useChainNow();
  const tx = usePageTransaction();
  const durations = getMortgageDurationsDays(Math.max(...item.pools.map((p) => p.maxDurationSeconds)));
  const [days, setDays] = useState(durations[0] ?? 7);
  const terms = useMortgageTerms({ buyer: owner, mint: item.listing.mint, durationSeconds: days * 86_400 });
  const held = useCurrencyBalance(item.listing.currency) ?? 0n;
  const t = terms.data;
  const costs = t ? parseTransactionCosts(t.costs) : null;
  const money = (amount: string, rounding: "down" | "up" = "down") =>
    formatMoney(BigInt(amount), item.listing.currency, rounding);
  const short = t !== undefined && BigInt(t.downPayment) > held;
  return (
    <section className="pg-extend" aria-label="Mortgage terms" data-testid="mortgage-panel">
      <label htmlFor={`${ids}-days`}>
        Pay back within
        <select id={`${ids}-days`} value={days} onChange={(e) => setDays(Number(e.target.value))}>
          {durations.map((d) => (
            <option key={d} value={d}>
              {d} days
            </option>
          ))}
        </select>
      </label>
      {terms.isPending ? <p className="pg-state">Getting the terms…</p> : null}
      {terms.error ? (
        <p className="error-text" role="alert" data-testid="mortgage-error">
          {describeErrorForUser(terms.error, { amount: (a, mint) => formatMoney(a, mint) })}
        </p>
      ) : null}
      {t ? (
        <div className="pg-quote">
          <TermsList
            testIdPrefix="mortgage"
            terms={[
              ["Price", money(t.price)],
              ["Down payment", money(t.downPayment, "up"), "you pay now"],
              ["Loan", money(t.principal)],
              ["APR", formatBps(t.aprBps)],
              ["Duration", `${days} days`],
              ["Interest", money(t.interest, "up"), "if repaid at the due date"],
              ["Total cost", money(t.totalCost, "up")],
              // what the transaction takes in SOL besides the down payment, measured on the transaction built
              ...(costs
                ? getCostTerms(costs, {
                    solAmountLamports: t.currency === SOL_MINT ? BigInt(t.downPayment) : 0n,
                  })
                : []),
            ]}
          />
          <p className="pg-small" data-testid="mortgage-sentence">
            You pay {money(t.downPayment, "up")} now and{" "}
            {formatMoney(BigInt(t.principal) + BigInt(t.interest), t.currency, "up")} by{" "}
            {formatDateTime(now + t.durationSeconds)} at the latest. Until you repay, the NFT stays{" "}
            {item.listing.standard === "programmable"
              ? "in your wallet, locked to the loan"
              : "locked in the loan"}
            . If you do not repay by the end of the grace period, the lender takes the NFT and you lose the
            down payment.
          </p>
          {short ? (
            <p className="error-text" role="alert" data-testid="mortgage-short">
              You hold {formatMoney(held, t.currency)}; the down payment is {money(t.downPayment, "up")}.
            </p>
          ) : null}
        </div>
      ) : null}
      <div className="pg-buttons">
        <button
          type="button"
          className="button button-primary"
          disabled={tx.busy || !t || short}
          onClick={async () => {
            const signature = await tx.run({
              action: "Take Mortgage",
              path: "/nft/take-mortgage",
              // the principal quoted: the transaction takes exactly the down payment shown (price - principal),
              // or the builder refuses if the pool no longer lends that much
              payload: {
                buyer: owner,
                nftMint: item.listing.mint,
                duration: days * 86_400,
                ...(t ? { amount: t.principal } : {}),
              },
            });
            if (signature) onDone();
          }}
          data-testid="mortgage-submit"
        >
          Buy now, pay later
        </button>
        <button type="button" className="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </section>
  );
}
