import { type CSSProperties, useLayoutEffect, useRef, useState } from "react";
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
            {toast.help.text}
            {toast.help.link ? (
              <>
                {" "}
                <a className="toast-link" href={toast.help.link.href} target="_blank" rel="noreferrer">
                  {toast.help.link.label}
                </a>
              </>
            ) : null}
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

/**
 * Where the toaster goes so it does not cover the control in use (the focused element): lifted just above it
 * when the toaster sits at the bottom, pushed just below it when it sits at the top (phones); null when they
 * do not overlap.
 */
export function placeClearOf(toaster: DOMRect, control: DOMRect, atBottom: boolean, viewportHeight: number) {
  const overlaps =
    toaster.left < control.right &&
    control.left < toaster.right &&
    toaster.top < control.bottom &&
    control.top < toaster.bottom;
  if (!overlaps) return null;
  return atBottom
    ? { bottom: `${Math.max(16, viewportHeight - control.top + 8)}px` }
    : { top: `${Math.max(8, control.bottom + 8)}px` };
}

/** The toaster: bottom-left, 330 px wide (spec section 9), top on phones; never over the focused control. */
export function Toaster() {
  const toasts = useStore(toastStore);
  const ref = useRef<HTMLElement>(null);
  const [style, setStyle] = useState<CSSProperties | undefined>(undefined);
  useLayoutEffect(() => {
    const place = () => {
      const toaster = ref.current;
      const active = document.activeElement;
      if (!toaster || !active || active === document.body || toaster.contains(active))
        return setStyle(undefined);
      toaster.style.top = "";
      toaster.style.bottom = "";
      const atBottom = getComputedStyle(toaster).bottom !== "auto";
      const next = placeClearOf(
        toaster.getBoundingClientRect(),
        active.getBoundingClientRect(),
        atBottom,
        window.innerHeight,
      );
      setStyle(next ?? undefined);
    };
    place();
    // nothing to keep clear while no toast shows: no listeners on scroll then
    if (toasts.length === 0) return;
    document.addEventListener("focusin", place);
    window.addEventListener("scroll", place, { passive: true });
    window.addEventListener("resize", place);
    return () => {
      document.removeEventListener("focusin", place);
      window.removeEventListener("scroll", place);
      window.removeEventListener("resize", place);
    };
  }, [toasts]);
  return (
    <section ref={ref} className="toaster" aria-label="Notifications" aria-live="polite" style={style}>
      {toasts.map((toast) => (
        <ToastView key={toast.id} toast={toast} />
      ))}
    </section>
  );
}
