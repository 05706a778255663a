import {
  DEFAULT_PRIORITY_FEE_SETTINGS,
  EXPLORER_NAMES,
  EXPLORERS,
  formatUnits,
  MAX_PRIORITY_FEE_SOL,
  type PriorityFeeSettings,
  parseExplorer,
} from "@cistern/protocol";
import { useId, useState } from "react";
import { useAppContext } from "../app-context.ts";
import { getPriorityFeeAmountError } from "./priority-fee.ts";
import { usePriorityFeeEstimates } from "./priority-fee-estimate.ts";
import {
  isHttpUrl,
  resetSettings,
  setExplorer,
  setPriorityFee,
  setRpcUrl,
  useSettings,
} from "./settings-store.ts";

/** Settings: explorer, RPC URL and priority fee (level, amount, type, broadcast mode). */
export default function SettingsPanel() {
  const { config } = useAppContext();
  const settings = useSettings();
  const [rpcDraft, setRpcDraft] = useState(settings.rpcUrl ?? "");
  const [rpcError, setRpcError] = useState<string | null>(null);
  const [amountDraft, setAmountDraft] = useState(settings.priorityFee.amountSol);
  const [amountError, setAmountError] = useState<string | null>(null);
  const amountInputId = useId();
  const amountMessageId = useId();
  const fee = settings.priorityFee;
  const updateFee = (patch: Partial<PriorityFeeSettings>) => setPriorityFee({ ...fee, ...patch });
  const estimates = usePriorityFeeEstimates(fee);

  return (
    <div className="settings">
      <h2>Settings</h2>
      <label className="field">
        <span>Explorer</span>
        <select
          value={settings.explorer}
          onChange={(e) => setExplorer(parseExplorer(e.target.value))}
          data-testid="explorer-select"
        >
          {EXPLORERS.map((explorer) => (
            <option key={explorer} value={explorer}>
              {EXPLORER_NAMES[explorer]}
            </option>
          ))}
        </select>
      </label>

      <form
        className="field"
        onSubmit={(e) => {
          e.preventDefault();
          const value = rpcDraft.trim();
          if (value !== "" && !isHttpUrl(value)) {
            setRpcError("Enter an http(s) URL");
            return;
          }
          setRpcError(null);
          setRpcUrl(value === "" ? null : value);
        }}
      >
        <label htmlFor="rpc-url">RPC URL</label>
        <div className="field-row">
          <input
            id="rpc-url"
            value={rpcDraft}
            placeholder={config.rpcUrl}
            onChange={(e) => setRpcDraft(e.target.value)}
            data-testid="rpc-input"
          />
          <button type="submit" className="button button-small">
            Save
          </button>
        </div>
        {rpcError ? <span className="field-error">{rpcError}</span> : null}
        <span className="field-hint">Empty uses the default ({config.rpcUrl}).</span>
      </form>

      <fieldset className="field">
        <legend>Priority fee</legend>
        <fieldset className="segmented" aria-label="Priority level">
          {(["medium", "fast", "ultra"] as const).map((level) => (
            <button
              key={level}
              type="button"
              aria-pressed={fee.level === level}
              className={fee.level === level ? "is-selected" : ""}
              onClick={() => updateFee({ level })}
              data-testid={`priority-${level}`}
            >
              {level[0]!.toUpperCase() + level.slice(1)}
              {estimates && fee.broadcastMode === "priorityFees" ? (
                <small className="segmented-hint"> ≈ {formatUnits(estimates[level], 9)} SOL</small>
              ) : null}
            </button>
          ))}
        </fieldset>
        {estimates && fee.broadcastMode === "priorityFees" ? (
          <span className="field-hint" data-testid="priority-estimate-note">
            Extra fee per level for a typical loan transaction (100,000 compute units) at the cluster's recent
            prices.
          </span>
        ) : null}
        <div className="field">
          <label htmlFor={amountInputId}>{fee.type === "maxCap" ? "Max cap (SOL)" : "Exact fee (SOL)"}</label>
          <input
            id={amountInputId}
            value={amountDraft}
            inputMode="decimal"
            aria-invalid={amountError !== null}
            aria-describedby={amountMessageId}
            onChange={(e) => {
              const draft = e.target.value;
              setAmountDraft(draft);
              const error = getPriorityFeeAmountError(draft.trim());
              setAmountError(error);
              if (error === null) updateFee({ amountSol: draft.trim() });
            }}
            data-testid="fee-amount"
          />
          {amountError ? (
            <span id={amountMessageId} className="field-error" role="alert" data-testid="fee-amount-error">
              {`${amountError}. Not saved: transactions keep using ${fee.amountSol} SOL.`}
            </span>
          ) : (
            <span id={amountMessageId} className="field-hint">
              {`More than 0 and at most ${MAX_PRIORITY_FEE_SOL} SOL${
                fee.broadcastMode === "jito" ? " (the Jito tip is the same amount)" : ""
              }.`}
            </span>
          )}
        </div>
        <label className="field">
          <span>Fee type</span>
          <select
            value={fee.type}
            onChange={(e) => updateFee({ type: e.target.value === "exactFee" ? "exactFee" : "maxCap" })}
          >
            <option value="maxCap">Max cap</option>
            <option value="exactFee">Exact fee</option>
          </select>
        </label>
        <label className="field">
          <span>Broadcast mode</span>
          <select
            value={fee.broadcastMode}
            onChange={(e) =>
              updateFee({ broadcastMode: e.target.value === "jito" ? "jito" : "priorityFees" })
            }
          >
            <option value="priorityFees">Priority fees</option>
            <option value="jito">Jito (adds a tip of the same amount)</option>
          </select>
        </label>
      </fieldset>
      <button
        type="button"
        className="link-button"
        onClick={() => {
          resetSettings();
          setRpcDraft("");
          setAmountDraft(DEFAULT_PRIORITY_FEE_SETTINGS.amountSol);
          setAmountError(null);
        }}
      >
        Reset to defaults
      </button>
    </div>
  );
}
