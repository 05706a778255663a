import { SECONDS_PER_DAY } from "@cistern/protocol";
import { useNftAssets } from "../../data/nft-assets.ts";
import { formatBps, formatDateTime, formatMoney } from "../../kit/format.ts";
import { usePageTransaction } from "../../kit/use-page-transaction.ts";
import { NftImage } from "../pools/nft-figure.tsx";
import { useTokens } from "../pools/pool-data.ts";
import { useWalletRequests } from "./request-data.ts";
import { requestCollateralLabel } from "./request-list.tsx";

/** The Loans page's "Your loan requests": the open ones with Cancel (the collateral comes back). */
export function MyRequests({ owner }: { owner: string }) {
  const requests = useWalletRequests(owner);
  const tokens = useTokens();
  const tx = usePageTransaction();
  const open = (requests.data?.requests ?? []).filter((r) => r.status === "Open");
  const nfts = useNftAssets(open.filter((r) => !r.isDefi).map((r) => r.collateralMint));
  if (open.length === 0) return null;
  return (
    <section className="pg-section" aria-label="Your loan requests" data-testid="my-requests">
      <h2 className="pg-h2">Your loan requests</h2>
      <ul className="pg-request-list">
        {open.map((request) => (
          <li key={request.pubkey} className="card pg-request-card" data-testid="my-request">
            <strong className="pg-nft-line" data-testid="request-collateral">
              <NftImage asset={request.isDefi ? undefined : nfts.get(request.collateralMint)} size={40} />
              {requestCollateralLabel(
                request,
                tokens.data,
                request.isDefi ? undefined : nfts.get(request.collateralMint),
              )}
            </strong>
            <span>
              You ask for {formatMoney(request.principal, request.currency)} for{" "}
              {Math.round(request.durationSeconds / SECONDS_PER_DAY)} days at up to{" "}
              {formatBps(request.maxAprBps)} APR
            </span>
            <small className="muted">
              Posted {formatDateTime(request.createdAt)}. Waiting for a lender; the collateral stays locked
              until then.
            </small>
            <button
              type="button"
              className="button"
              disabled={tx.busy}
              data-testid="cancel-request"
              onClick={() =>
                void tx.run({
                  action: "Cancel Loan Request",
                  path: "/loan-request/cancel",
                  payload: { borrower: owner, request: request.pubkey },
                })
              }
            >
              Cancel request
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
