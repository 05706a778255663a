import { useState } from "react";
import { useStore } from "../lib/create-store.ts";
import { dismissToast, type Toast, toastStore } from "./toast-store.ts";

const ICONS: Record<Toast["kind"], string> = { success: "✓", error: "!", info: "i", loading: "" };

function ToastView({ toast }: { toast: Toast }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className={`toast toast-${toast.kind}`} role={toast.kind === "error" ? "alert" : "status"}>
      <span className="toast-icon" aria-hidden="true">
        {toast.kind === "loading" ? <span className="spinner" /> : ICONS[toast.kind]}
      </span>
      <div className="toast-body">
        <div className="toast-title">{toast.title}</div>
        {toast.description ? <div className="toast-description">{toast.description}</div> : null}
        {toast.link ? (
          <a className="toast-link" href={toast.link.href} target="_blank" rel="noreferrer">
            {toast.link.label}
          </a>
        ) : null}
        {toast.help ? (
          <div className="toast-description">
            {toast.help.text}{" "}
            <a className="toast-link" href={toast.help.link.href} target="_blank" rel="noreferrer">
              {toast.help.link.label}
            </a>
          </div>
        ) : null}
        {toast.detail ? (
          <details className="toast-detail">
            <summary>Details</summary>
            <pre>{toast.detail}</pre>
          </details>
        ) : null}
        {toast.copyText ? (
          <button
            type="button"
            className="button button-small"
            onClick={() => {
              void navigator.clipboard?.writeText(toast.copyText ?? "").then(() => setCopied(true));
            }}
          >
            {copied ? "Copied" : "Copy full error"}
          </button>
        ) : null}
      </div>
      <button type="button" className="toast-close" aria-label="Close" onClick={() => dismissToast(toast.id)}>
        ×
      </button>
    </div>
  );
}

/** The toaster: bottom-left, 330 px wide (spec section 9). */
export function Toaster() {
  const toasts = useStore(toastStore);
  return (
    <section className="toaster" aria-label="Notifications" aria-live="polite">
      {toasts.map((toast) => (
        <ToastView key={toast.id} toast={toast} />
      ))}
    </section>
  );
}
