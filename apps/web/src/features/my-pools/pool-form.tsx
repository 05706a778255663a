import { computeUtilisationPercent, listCurrencies, type PoolType } from "@cistern/protocol";
import { type ReactNode, useId, useState } from "react";
import { useCollections, useTokens } from "../pools/pool-data.ts";
import { type FormErrors, newRowKey, type PoolFormState, validatePoolForm } from "./pool-form-model.ts";

function Field({
  label,
  error,
  hint,
  children,
  id,
  required,
}: {
  label: string;
  error?: string | undefined;
  hint?: string;
  children: ReactNode;
  id: string;
  /** Marks the field as required (an asterisk, read out as "required"). */
  required?: boolean;
}) {
  return (
    <div className={error ? "pg-field has-error" : "pg-field"}>
      <label htmlFor={id}>
        {label}
        {required ? (
          <span className="pg-required">
            <span aria-hidden="true"> *</span>
            <span className="pg-sr"> (required)</span>
          </span>
        ) : null}
      </label>
      {children}
      {hint ? <small className="muted">{hint}</small> : null}
      {error ? (
        <small className="error-text" id={`${id}-error`} data-testid={`error-${id.split("-").pop()}`}>
          {error}
        </small>
      ) : null}
    </div>
  );
}

/**
 * Create or edit a pool: every field of the pool form, checked before anything is sent. Shows
 * each problem next to its field; `onSubmit` only ever receives a valid form.
 */
export function PoolFormView({
  mode,
  initial,
  walletBalance,
  busy,
  utilisation,
  onSubmit,
  onCurrencyChange,
}: {
  mode: "create" | "update";
  initial: PoolFormState;
  walletBalance?: bigint | undefined;
  busy: boolean;
  utilisation?: { borrowed: bigint; total: bigint };
  onSubmit(form: PoolFormState): Promise<unknown>;
  onCurrencyChange?(mint: string): void;
}) {
  const uid = useId();
  const id = (name: string) => `${uid}-${name}`;
  const [form, setForm] = useState(initial);
  const [errors, setErrors] = useState<FormErrors>({});
  const collections = useCollections();
  const tokens = useTokens();
  const set = <K extends keyof PoolFormState>(key: K, value: PoolFormState[K]) =>
    setForm((f) => ({ ...f, [key]: value }));
  const isNft = form.type === "nft-pool";
  const options: { id: string; label: string }[] = isNft
    ? [...(collections.data?.values() ?? [])].map((c) => ({ id: c.id, label: c.name }))
    : Object.values(tokens.data ?? {})
        .filter((t) => t.mint !== form.currency)
        .map((t) => ({ id: t.mint, label: `${t.symbol} — ${t.name}` }));
  const input = (name: keyof PoolFormState, extra: Record<string, unknown> = {}) => ({
    id: id(name),
    name,
    value: String(form[name]),
    "aria-invalid": errors[name] !== undefined,
    "aria-describedby": errors[name] ? `${id(name)}-error` : undefined,
    onChange: (e: { target: { value: string } }) => set(name, e.target.value as never),
    ...extra,
  });
  const check = (name: keyof PoolFormState, label: string, hint?: string) => (
    <label className="pg-check">
      <input
        type="checkbox"
        checked={Boolean(form[name])}
        onChange={(e) => set(name, e.target.checked as never)}
      />
      <span>
        {label}
        {hint ? <small className="muted"> {hint}</small> : null}
      </span>
    </label>
  );
  const errorCount = Object.keys(errors).length;
  return (
    <form
      className="pg-form pg-pool-form"
      noValidate
      aria-label={mode === "create" ? "Create pool" : "Update pool"}
      onSubmit={async (event) => {
        event.preventDefault();
        if (busy) return;
        const found = validatePoolForm(form, mode, walletBalance === undefined ? {} : { walletBalance });
        setErrors(found);
        if (Object.keys(found).length > 0) return;
        await onSubmit(form);
      }}
    >
      {mode === "create" ? (
        <fieldset className="pg-segment">
          <legend>Pool type</legend>
          {(["nft-pool", "defi-pool"] as PoolType[]).map((t) => (
            <label key={t} className={form.type === t ? "pg-tab is-active" : "pg-tab"}>
              <input
                type="radio"
                name="type"
                value={t}
                checked={form.type === t}
                onChange={() => setForm((f) => ({ ...f, type: t, collateral: [] }))}
              />
              {t === "nft-pool" ? "NFT collateral" : "Token collateral"}
            </label>
          ))}
        </fieldset>
      ) : null}
      <div className="pg-grid-form">
        {mode === "create" ? (
          <Field
            id={id("name")}
            label="Pool name"
            error={errors.name}
            required
            hint="Shown to borrowers; your wallet signs it once the pool exists."
          >
            <input {...input("name")} maxLength={32} autoComplete="off" />
          </Field>
        ) : null}
        <Field id={id("currency")} label="Currency" error={errors.currency}>
          <select
            {...input("currency", {
              onChange: (e: { target: { value: string } }) => {
                set("currency", e.target.value);
                onCurrencyChange?.(e.target.value);
              },
            })}
            disabled={mode === "update"}
          >
            {listCurrencies().map((c) => (
              <option key={c.mint} value={c.mint}>
                {c.symbol}
              </option>
            ))}
          </select>
        </Field>
        {mode === "create" ? (
          <Field
            id={id("amount")}
            label="Amount to lend"
            error={errors.amount}
            required
            hint="Deposited into your bank for this currency; withdraw what is not lent at any time."
          >
            <input {...input("amount")} inputMode="decimal" autoComplete="off" />
          </Field>
        ) : utilisation ? (
          <div className="pg-field">
            <span>Utilisation</span>
            <strong data-testid="utilisation">
              {computeUtilisationPercent(utilisation.borrowed, utilisation.total)}%
            </strong>
          </div>
        ) : null}
        <Field
          id={id("apy")}
          label="APR (%)"
          error={errors.apy}
          required
          hint="Simple yearly rate borrowers pay; interest accrues per hour. Your share of it goes back into your bank, lent again until you withdraw it."
        >
          <input {...input("apy")} inputMode="decimal" />
        </Field>
        <Field id={id("durationDays")} label="Maximum duration (days)" error={errors.durationDays} required>
          <input {...input("durationDays")} inputMode="numeric" />
        </Field>
        <Field
          id={id("minAmountUsd")}
          label="Minimum loan (USD)"
          error={errors.minAmountUsd}
          hint="10 when empty."
        >
          <input {...input("minAmountUsd")} inputMode="decimal" />
        </Field>
        <Field id={id("maxAmountUsd")} label="Maximum loan (USD)" error={errors.maxAmountUsd} required>
          <input {...input("maxAmountUsd")} inputMode="decimal" />
        </Field>
      </div>
      {mode === "create" ? (
        <p className="muted pg-small" data-testid="create-note">
          Auto-sell, mortgages, borrower conditions and private loans are set on the pool once it exists
          (Edit).
        </p>
      ) : (
        <fieldset className="pg-checks">
          <legend>Options</legend>
          {isNft
            ? check("isMortgageEnabled", "Mortgages", "Let borrowers buy NFTs with a loan from this pool.")
            : null}
          {check(
            "isAutoSellEnabled",
            "Auto-sell liquidated collateral",
            isNft
              ? "An unpaid loan's NFT is sold to the best collection offer into your bank when the offer repays principal and interest; otherwise you receive the NFT."
              : "An unpaid loan's tokens are sold into your bank when the sale repays principal and interest; otherwise you receive the tokens.",
          )}
          {check("withConditions", "Borrower conditions")}
          {check("isPrivate", "Private loans", "Only whitelisted wallets may borrow.")}
        </fieldset>
      )}
      {mode === "update" && isNft && form.isMortgageEnabled ? (
        <div className="pg-grid-form" data-testid="mortgage-terms">
          <Field
            id={id("mortgageApy")}
            label="Mortgage APR (%)"
            error={errors.mortgageApy}
            hint="What buyers pay on a mortgage from this pool; the loan APR when empty."
          >
            <input {...input("mortgageApy")} inputMode="decimal" />
          </Field>
        </div>
      ) : null}
      {mode === "update" && form.withConditions ? (
        <div className="pg-grid-form" data-testid="conditions">
          <Field id={id("minAgeDays")} label="Minimum wallet age (days)" error={errors.minAgeDays}>
            <input {...input("minAgeDays")} inputMode="numeric" />
          </Field>
          <Field id={id("minLoan")} label="Minimum past loans" error={errors.minLoan}>
            <input {...input("minLoan")} inputMode="numeric" />
          </Field>
          <Field id={id("minVolume")} label="Minimum volume (USD)" error={errors.minVolume}>
            <input {...input("minVolume")} inputMode="decimal" />
          </Field>
        </div>
      ) : null}
      {mode === "update" && form.isPrivate ? (
        <div className="pg-grid-form">
          <Field id={id("whitelist")} label="Whitelist address" error={errors.whitelist}>
            <input {...input("whitelist")} autoComplete="off" />
          </Field>
          <Field
            id={id("whitelistAddresses")}
            label="Whitelisted wallets"
            error={errors.whitelistAddresses}
            hint="One address per line."
          >
            <textarea {...input("whitelistAddresses")} rows={3} />
          </Field>
        </div>
      ) : null}
      <fieldset className="pg-collateral">
        <legend>{isNft ? "Collections" : "Tokens"} accepted</legend>
        {errors.collateral ? (
          <p className="error-text" data-testid="error-collateral">
            {errors.collateral}
          </p>
        ) : null}
        {form.collateral.map((row, i) => {
          const update = (patch: Partial<typeof row>) =>
            set(
              "collateral",
              form.collateral.map((r, j) => (j === i ? { ...r, ...patch } : r)),
            );
          return (
            <div className="pg-collateral-row" key={row.key}>
              <Field
                id={id(`c${i}id`)}
                label={isNft ? "Collection" : "Token"}
                error={errors[`collateral.${i}.id`]}
              >
                <select id={id(`c${i}id`)} value={row.id} onChange={(e) => update({ id: e.target.value })}>
                  <option value="">Choose…</option>
                  {options.map((o) => (
                    <option key={o.id} value={o.id}>
                      {o.label}
                    </option>
                  ))}
                </select>
              </Field>
              <Field id={id(`c${i}ltv`)} label="LTV (%)" error={errors[`collateral.${i}.ltv`]}>
                <input
                  id={id(`c${i}ltv`)}
                  inputMode="decimal"
                  value={row.ltv}
                  onChange={(e) => update({ ltv: e.target.value })}
                />
              </Field>
              <Field id={id(`c${i}exposure`)} label="Exposure (%)" error={errors[`collateral.${i}.exposure`]}>
                <input
                  id={id(`c${i}exposure`)}
                  inputMode="decimal"
                  value={row.exposure}
                  onChange={(e) => update({ exposure: e.target.value })}
                />
              </Field>
              <button
                type="button"
                className="button"
                aria-label={`Remove row ${i + 1}`}
                onClick={() =>
                  set(
                    "collateral",
                    form.collateral.filter((_, j) => j !== i),
                  )
                }
              >
                Remove
              </button>
            </div>
          );
        })}
        <button
          type="button"
          className="button"
          onClick={() =>
            set("collateral", [...form.collateral, { key: newRowKey(), id: "", ltv: "50", exposure: "100" }])
          }
        >
          Add {isNft ? "collection" : "token"}
        </button>
      </fieldset>
      <p className="error-text" role="alert" data-testid="form-summary">
        {errorCount > 0 ? `Fix ${errorCount} field${errorCount === 1 ? "" : "s"} above.` : ""}
      </p>
      <button
        type="submit"
        className="button button-primary pg-submit"
        disabled={busy}
        data-testid="pool-submit"
      >
        {busy ? "Sending…" : mode === "create" ? "Create pool" : "Update pool"}
      </button>
    </form>
  );
}
