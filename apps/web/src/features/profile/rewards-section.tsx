import { useState } from "react";
import { useApiQuery } from "../../kit/api.ts";
import { formatUsd } from "../../kit/format.ts";
import { QueryState, Stats } from "../../kit/page-kit.tsx";
import { parseDroplets, parseReferralFigures } from "./profile-data.ts";

const wholeNumber = (n: number) => Math.floor(n).toLocaleString("en-US");

/** The wallet's droplets (points) and its referral link with what it brought. */
export function RewardsSection({ owner }: { owner: string }) {
  const droplets = useApiQuery("profile", "/user/user-droplets", { pubkey: owner }, parseDroplets);
  const referrals = useApiQuery("profile", "/user/referrals", { referrer: owner }, parseReferralFigures);
  const link = `${globalThis.location?.origin ?? ""}/?referral=${owner}`;
  const [copied, setCopied] = useState(false);
  return (
    <div className="pg-grid">
      <div className="card pg-section" data-testid="droplets">
        <h3>Droplets</h3>
        <QueryState query={droplets} label="your droplets">
          {(d) => (
            <>
              <p className="pg-big">{wholeNumber(d.droplets)}</p>
              <p className="muted pg-small" data-testid="droplets-rule">
                How droplets are earned: 1 droplet for every USD-day of principal you had outstanding, as a
                borrower and as a lender (a loan earns its borrower and the pool's owner each): a $1,000 loan
                open for 3 days earns 3,000. A loan counts from when it was taken until it was repaid,
                extended, sold or liquidated (an open loan, up to now), from your loans on chain, valued at
                today's prices, in whole droplets rounded down.
              </p>
              <p className="muted pg-small">
                Borrowed: {wholeNumber(d.borrowedUsdDays)} USD-days; lent: {wholeNumber(d.lentUsdDays)}{" "}
                USD-days.
              </p>
            </>
          )}
        </QueryState>
      </div>
      <div className="card pg-section" data-testid="referrals">
        <h3>Referrals</h3>
        <p className="muted pg-small">
          Share your link: loans taken by wallets that arrive through it count here.
        </p>
        <div className="pg-referral-link">
          <input readOnly value={link} aria-label="Your referral link" onFocus={(e) => e.target.select()} />
          <button
            type="button"
            className="button"
            onClick={async () => {
              await navigator.clipboard?.writeText(link).catch(() => undefined);
              setCopied(true);
            }}
          >
            {copied ? "Copied" : "Copy"}
          </button>
        </div>
        <QueryState query={referrals} label="your referrals">
          {(r) => (
            <Stats
              items={[
                { label: "Wallets referred", value: r.walletsReferred },
                { label: "Loans", value: r.loans },
                { label: "Volume", value: formatUsd(r.volumeUsd) },
              ]}
            />
          )}
        </QueryState>
      </div>
    </div>
  );
}
