import { computeLenderInterest, formatAmount, SECONDS_PER_DAY, shortenAddress } from "@cistern/protocol";
import { useWallet } from "@solana/wallet-adapter-react";
import { useNftAssets } from "../../data/nft-assets.ts";
import { formatBps, formatMoney, symbolOf } from "../../kit/format.ts";
import { QueryState } from "../../kit/page-kit.tsx";
import { usePageTransaction } from "../../kit/use-page-transaction.ts";
import { describeNftStandard } from "../borrow/nft-standard.ts";
import { NftImage } from "../pools/nft-figure.tsx";
import { useTokens } from "../pools/pool-data.ts";
import { type LoanRequestView, useOpenRequests } from "./request-data.ts";

/** How a request names its collateral in plain words. */
export function requestCollateralLabel(
  request: LoanRequestView,
  tokens?: Record<string, { symbol: string; decimals?: number }>,
  nft?: { name: string },
): string {
  if (!request.isDefi && nft !== undefined)
    return request.collectionName === null ? nft.name : `${nft.name} (${request.collectionName})`;
  if (!request.isDefi) return `An NFT of ${request.collectionName ?? "an unlisted collection"}`;
  const decimals = tokens?.[request.collateralMint]?.decimals ?? 0;
  return `${formatAmount(request.collateralAmount, decimals)} ${symbolOf(request.collateralMint, tokens)}`;
}

/**
 * The Lend page's open loan requests in one currency: what each borrower pledges, what they ask for, the implied
 * LTV at the oracle's valuation, what a lender earns at the borrower's highest APR, and Fill.
 */
export function OpenRequests({ currency }: { currency: string }) {
  const requests = useOpenRequests(currency);
  const tokens = useTokens();
  const nfts = useNftAssets(
    (requests.data?.requests ?? []).filter((r) => !r.isDefi).map((r) => r.collateralMint),
  );
  const { publicKey } = useWallet();
  const wallet = publicKey?.toBase58() ?? null;
  const tx = usePageTransaction();
  return (
    <section className="pg-section" aria-label="Open loan requests" data-testid="open-requests">
      <h2 className="pg-h2">Open loan requests</h2>
      <p className="pg-small muted">
        Borrowers who found no pool that fits post their own terms; their collateral is already locked in the
        Cistern program. Filling one lends from your bank in this currency at the borrower's highest APR.
      </p>
      <QueryState
        query={requests}
        label="loan requests"
        isEmpty={(r) => r.requests.length === 0}
        empty="No open loan requests in this currency."
      >
        {(r) => (
          <ul className="pg-request-list">
            {r.requests.map((request) => {
              const earn = computeLenderInterest(request.interestAtMaxApr);
              const own = wallet === request.borrower;
              return (
                <li key={request.pubkey} className="card pg-request-card" data-testid="request-row">
                  <strong className="pg-nft-line" data-testid="request-collateral">
                    <NftImage
                      asset={request.isDefi ? undefined : nfts.get(request.collateralMint)}
                      size={40}
                    />
                    {requestCollateralLabel(
                      request,
                      tokens.data,
                      request.isDefi ? undefined : nfts.get(request.collateralMint),
                    )}
                  </strong>
                  {/* a Core asset or a compressed NFT is held by the request, then the loan, as the standard says */}
                  {!request.isDefi && (nfts.get(request.collateralMint)?.standard ?? "Nft") !== "Nft" ? (
                    <small className="muted" data-testid="request-standard">
                      {describeNftStandard(nfts.get(request.collateralMint)!.standard!)}
                    </small>
                  ) : null}
                  <span>
                    asks for{" "}
                    <strong data-testid="request-amount">{formatMoney(request.principal, currency)}</strong>{" "}
                    for {Math.round(request.durationSeconds / SECONDS_PER_DAY)} days at up to{" "}
                    {formatBps(request.maxAprBps)} APR
                  </span>
                  <small className="muted" data-testid="request-ltv">
                    {request.ltvBps === null || request.collateralValue === null
                      ? "Collateral value unknown"
                      : `LTV ${formatBps(request.ltvBps)} of a ${formatMoney(request.collateralValue, currency)} valuation`}
                    {" · "}by {shortenAddress(request.borrower)}
                  </small>
                  <small>
                    You earn {formatMoney(earn, currency)} after the protocol fee if it is repaid at the due
                    date; unpaid after the grace period, the collateral is yours.
                  </small>
                  {wallet !== null && !own ? (
                    <button
                      type="button"
                      className="button button-primary"
                      disabled={tx.busy}
                      data-testid="fill-request"
                      onClick={() =>
                        void tx.run({
                          action: "Fill Loan Request",
                          path: "/loan-request/fill",
                          payload: { lender: wallet, request: request.pubkey },
                        })
                      }
                    >
                      Fill for {formatMoney(request.principal, currency)}
                    </button>
                  ) : own ? (
                    <small className="muted">Your request (cancel it on Loans).</small>
                  ) : null}
                </li>
              );
            })}
          </ul>
        )}
      </QueryState>
    </section>
  );
}
