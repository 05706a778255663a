import {
  getCurrencyByMint,
  getErrorText,
  listCurrencies,
  type ParsedPool,
  SOL_MINT,
} from "@cistern/protocol";
import { useWallet } from "@solana/wallet-adapter-react";
import { useState } from "react";
import { useAppContext } from "../../app-context.ts";
import { useCurrencyBalance } from "../../data/balances.ts";
import { formatBps, formatMoney } from "../../kit/format.ts";
import { Link, Page, QueryState, RequireWallet } from "../../kit/page-kit.tsx";
import { usePageTransaction } from "../../kit/use-page-transaction.ts";
import { navigate } from "../../lib/location.ts";
import { showToast } from "../../toasts/toast-store.ts";
import { poolName } from "../pools/pool-cards.tsx";
import { useOwnerPools, usePool } from "../pools/pool-data.ts";
import { BankPanel } from "./bank-panel.tsx";
import { PoolFormView } from "./pool-form.tsx";
import { buildCreation, buildUpdate, emptyPoolForm, poolToFormState } from "./pool-form-model.ts";
import { PoolMetadataForm, savePoolMetadata } from "./pool-metadata-form.tsx";

const routeKind = (pool: { type: string }) => (pool.type === "nft-pool" ? "nft" : "defi");

/** The lender's pools and banks. */
export function MyPoolsPage() {
  return (
    <Page
      title="My pools"
      lead="Your pools and the banks that fund them."
      actions={
        <Link to="/my-pools/new" className="button button-primary">
          Create a pool
        </Link>
      }
    >
      <RequireWallet what="manage your pools">{(owner) => <MyPools owner={owner} />}</RequireWallet>
    </Page>
  );
}

function MyPools({ owner }: { owner: string }) {
  const data = useOwnerPools(owner);
  const balances = {
    [SOL_MINT]: useCurrencyBalance(SOL_MINT),
    [listCurrencies()[1]!.mint]: useCurrencyBalance(listCurrencies()[1]!.mint),
  };
  const tx = usePageTransaction();
  const [closing, setClosing] = useState<string | null>(null);
  return (
    <QueryState query={data} label="your pools">
      {(page) => (
        <>
          <h2 className="pg-h2">Banks</h2>
          {page.banks.length === 0 ? (
            <p className="pg-state pg-empty">Your first pool creates your bank for its currency.</p>
          ) : (
            <div className="pg-grid">
              {page.banks.map((bank) => (
                <BankPanel key={bank.pubkey} bank={bank} owner={owner} walletBalance={balances[bank.mint]} />
              ))}
            </div>
          )}
          <h2 className="pg-h2">Pools</h2>
          {page.pools.length === 0 ? (
            <div className="pg-state pg-empty" data-testid="state-empty">
              You have no pools yet. <Link to="/my-pools/new">Create your first pool</Link>.
            </div>
          ) : (
            <ul className="pg-grid" data-testid="my-pools">
              {page.pools.map((pool) => (
                <li key={pool.pubkey} className="card pg-pool-card">
                  <div className="pg-pool-title">
                    <strong>{poolName(pool)}</strong>
                    <span className="pg-badge">{pool.type === "nft-pool" ? "NFT" : "Token"}</span>
                    <span className={`pg-status pg-status-${pool.status.toLowerCase()}`}>{pool.status}</span>
                  </div>
                  <PoolFigures
                    pool={pool}
                    sharing={
                      page.pools.filter((p) => p.bank === pool.bank && p.pubkey !== pool.pubkey).length
                    }
                  />
                  {pool.needsMigration ? (
                    <div className="pg-warning" role="status" data-testid="upgrade-pool">
                      <p>
                        This pool was written before the lending program's last upgrade. Until you upgrade it,
                        it lends nothing and its loans cannot be repaid or extended. Upgrading costs the rent
                        of the few bytes each account grows by.
                      </p>
                      <button
                        type="button"
                        className="button button-primary"
                        disabled={tx.busy}
                        onClick={() =>
                          tx.run({
                            action: "Upgrade Pool",
                            path: "/nft/migrate",
                            payload: { owner, pool: pool.pubkey },
                          })
                        }
                      >
                        Upgrade pool
                      </button>
                    </div>
                  ) : null}
                  {pool.status !== "Closed" ? (
                    <div className="pg-buttons">
                      <Link to={`/my-pools/${pool.pubkey}`} className="button">
                        Edit
                      </Link>
                      <Link to={`/pools/${pool.pubkey}`} className="button">
                        View
                      </Link>
                      {closing === pool.pubkey ? (
                        <>
                          <button
                            type="button"
                            className="button button-danger"
                            disabled={tx.busy}
                            onClick={async () => {
                              await tx.run({
                                action: "Close Pool",
                                path: `/${routeKind(pool)}/close-pool`,
                                payload: { owner, pool: pool.pubkey },
                              });
                              setClosing(null);
                            }}
                          >
                            Confirm close
                          </button>
                          <button type="button" className="button" onClick={() => setClosing(null)}>
                            Keep
                          </button>
                        </>
                      ) : (
                        <>
                          <button
                            type="button"
                            className="button"
                            disabled={pool.currentLoan > 0}
                            aria-describedby={pool.currentLoan > 0 ? `close-why-${pool.pubkey}` : undefined}
                            onClick={() => setClosing(pool.pubkey)}
                          >
                            Close
                          </button>
                          {pool.currentLoan > 0 ? (
                            <small className="pg-why" id={`close-why-${pool.pubkey}`}>
                              A pool with ongoing loans closes once they are repaid or liquidated.
                            </small>
                          ) : null}
                        </>
                      )}
                    </div>
                  ) : null}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </QueryState>
  );
}

/**
 * A pool's own figures: its APR, what it lends now (its ongoing loans' principal) and its loans. The funds it lends
 * from are its bank's, shared with the owner's other pools of that currency: said as such, never as the pool's.
 */
function PoolFigures({ pool, sharing }: { pool: ParsedPool; sharing: number }) {
  return (
    <dl className="pg-mini">
      <div>
        <dt>APR</dt>
        <dd>{formatBps(pool.loanCurve.apr)}</dd>
      </div>
      <div>
        <dt>Lent now</dt>
        <dd data-testid="pool-lent">{formatMoney(pool.borrowedLiquidity, pool.currency)}</dd>
      </div>
      <div>
        <dt>Lends from</dt>
        <dd data-testid="pool-funds">
          {sharing === 0
            ? `its bank: ${formatMoney(pool.availableLiquidity, pool.currency)} available`
            : `the bank it shares with ${sharing === 1 ? "1 other pool" : `${sharing} other pools`}: ${formatMoney(pool.availableLiquidity, pool.currency)} available to all of them`}
        </dd>
      </div>
      <div>
        <dt>Ongoing loans</dt>
        <dd>{pool.currentLoan}</dd>
      </div>
    </dl>
  );
}

/** Create a pool (nft or defi): deposit and terms in one transaction. */
export function CreatePoolPage() {
  return (
    <Page title="Create a pool" lead="Set your terms. Borrowers see exactly these before they sign.">
      <RequireWallet what="create a pool">{(owner) => <CreatePool owner={owner} />}</RequireWallet>
    </Page>
  );
}

/** Waits (up to `timeoutMs`) until the indexer reports the owner's bank for `mint`. */
async function waitForBank(
  refetch: () => Promise<{ data?: { banks: { mint: string; pubkey: string }[] } | undefined }>,
  mint: string,
  timeoutMs = 20_000,
): Promise<string | null> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const result = await refetch();
    const bank = result.data?.banks.find((b) => b.mint === mint);
    if (bank) return bank.pubkey;
    await new Promise((resolve) => setTimeout(resolve, 400));
  }
  return null;
}

function CreatePool({ owner }: { owner: string }) {
  const [currency, setCurrency] = useState(listCurrencies()[1]!.mint);
  const balance = useCurrencyBalance(currency);
  const owned = useOwnerPools(owner);
  const tx = usePageTransaction();
  const { config } = useAppContext();
  const wallet = useWallet();
  const [step, setStep] = useState("");
  const hasBank = (mint: string) => owned.data?.banks.some((b) => b.mint === mint) ?? false;
  return (
    <>
      {owned.data && !hasBank(currency) ? (
        <p className="pg-warning" data-testid="first-bank-note">
          Your first {getCurrencyByMint(currency)?.symbol} pool takes two signatures: the deposit opens your{" "}
          {getCurrencyByMint(currency)?.symbol} bank, then the pool is published on it.
        </p>
      ) : null}
      {step ? (
        <p className="muted" role="status">
          {step}
        </p>
      ) : null}
      <PoolFormView
        mode="create"
        initial={emptyPoolForm("nft-pool", currency)}
        walletBalance={balance}
        busy={tx.busy || step !== ""}
        onCurrencyChange={setCurrency}
        onSubmit={async (form) => {
          const fail = (message: string) =>
            showToast({ kind: "error", title: "Create Pool", description: message });
          // Check the whole payload before anything is signed.
          const draft = buildCreation(form, owner, owner);
          if (!draft.ok) return fail(draft.message);
          let bank = owned.data?.banks.find((b) => b.mint === form.currency)?.pubkey;
          let amount = draft.payload.amount;
          if (bank === undefined) {
            setStep("Step 1 of 2: opening your bank with the deposit…");
            try {
              const deposited = await tx.run({
                action: "Add Liquidity",
                path: "/bank/deposit",
                payload: { owner, mint: form.currency, amount },
              });
              if (!deposited) return;
              const found = await waitForBank(owned.refetch, form.currency);
              if (found === null)
                return fail("Your deposit is confirmed but the bank is not indexed yet; try again.");
              bank = found;
              amount = "0";
            } finally {
              setStep("");
            }
          }
          const built = buildCreation(form, owner, bank);
          if (!built.ok) return fail(built.message);
          let pool: string | null = null;
          const signature = await tx.run({
            action: "Create Pool",
            path: `/${form.type === "nft-pool" ? "nft" : "defi"}/create-pool`,
            payload: { ...built.payload, amount } as unknown as Record<string, unknown>,
            onConfirmed: (metadata) => {
              pool = typeof metadata.pool === "string" ? metadata.pool : null;
            },
          });
          if (!signature) return;
          if (pool !== null) {
            setStep("Naming your pool: your wallet signs a message (nothing is sent on chain)…");
            try {
              await savePoolMetadata(config.apiUrl, wallet, pool, form.name.trim(), form.image.trim());
            } catch (error) {
              showToast({
                kind: "error",
                title: "Pool created, name not saved",
                description: `${getErrorText(error)} Name it from the pool's Edit page.`,
              });
            } finally {
              setStep("");
            }
          }
          navigate("/my-pools");
        }}
      />
    </>
  );
}

/** Edit one of the wallet's pools. */
export function EditPoolPage({ pubkey }: { pubkey: string }) {
  const pool = usePool(pubkey);
  return (
    <Page title="Edit pool">
      <RequireWallet what="edit your pool">
        {(owner) => (
          <QueryState
            query={pool}
            label="the pool"
            isEmpty={(p) => p === null}
            empty="No pool at this address."
          >
            {(p) =>
              p!.owner !== owner ? (
                <p className="pg-state pg-error">Only the pool's owner can edit it.</p>
              ) : (
                <EditPool pool={p!} owner={owner} />
              )
            }
          </QueryState>
        )}
      </RequireWallet>
    </Page>
  );
}

function EditPool({ pool, owner }: { pool: ParsedPool; owner: string }) {
  const tx = usePageTransaction();
  return (
    <>
      <p className="muted">
        {poolName(pool)} · {getCurrencyByMint(pool.currency)?.symbol} · {pool.type}
      </p>
      <PoolMetadataForm pool={pool} />
      <h2 className="pg-h2">Terms</h2>
      <PoolFormView
        mode="update"
        initial={poolToFormState(pool)}
        busy={tx.busy}
        utilisation={{ borrowed: pool.borrowedLiquidity, total: pool.totalLiquidity }}
        onSubmit={async (form) => {
          const built = buildUpdate(form, owner, pool.bank, pool.pubkey);
          if (!built.ok) {
            showToast({ kind: "error", title: "Update Pool", description: built.message });
            return;
          }
          const signature = await tx.run({
            action: "Update Pool",
            path: `/${routeKind(pool)}/update-pool`,
            payload: built.payload as unknown as Record<string, unknown>,
          });
          if (signature) navigate("/my-pools");
        }}
      />
    </>
  );
}
