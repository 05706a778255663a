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
 * when the toaster sits at the bottom, pushed just below it when it sits at the top; null when they do not
 * overlap.
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

/** What the toaster keeps clear of in the work area: its fields, buttons, sliders and terms rows. */
const WORK_CONTROLS = "input, select, textarea, button, output, [role='slider'], dl > div";

/**
 * Where the toaster goes so it hides nothing in use: clear of every rect in `keep` (the focused control and the
 * controls of the form or card it is in) that shares its columns. It moves the least from its edge (the bottom,
 * or the top when `atBottom` is false) to a band between `minTop` and the viewport's bottom where none of them
 * is; null when it already overlaps none; when no such band exists, clear of the first rect (the focused control)
 * alone, as placeClearOf.
 */
export function placeClearOfAll(
  toaster: DOMRect,
  keep: readonly DOMRect[],
  atBottom: boolean,
  viewportHeight: number,
  minTop = 8,
): { top?: string; bottom?: string } | null {
  const height = toaster.bottom - toaster.top;
  const inColumns = keep.filter(
    (r) => r.left < toaster.right && toaster.left < r.right && r.bottom > 0 && r.top < viewportHeight,
  );
  const hits = (top: number) => inColumns.some((r) => top < r.bottom && r.top < top + height);
  if (!hits(toaster.top)) return null;
  const edge = atBottom ? viewportHeight - 16 - height : minTop;
  const candidates = [edge, ...inColumns.flatMap((r) => [r.top - 8 - height, r.bottom + 8])].filter(
    (top) => top >= minTop && top + height <= viewportHeight - 8 && !hits(top),
  );
  if (candidates.length === 0)
    return keep[0] ? placeClearOf(toaster, keep[0], atBottom, viewportHeight) : null;
  const top = candidates.reduce((best, c) => (Math.abs(c - edge) < Math.abs(best - edge) ? c : best));
  return atBottom
    ? { bottom: `${Math.round(viewportHeight - top - height)}px` }
    : { top: `${Math.round(top)}px` };
}

/** The controls to keep clear of: the focused one first, then those of its form or card that are on screen. */
function getWorkRects(active: Element): DOMRect[] {
  const area = active.closest("form, .card") ?? active.closest("section");
  const controls = area ? [...area.querySelectorAll(WORK_CONTROLS)] : [];
  return [active, ...controls.filter((c) => c !== active)]
    .map((c) => c.getBoundingClientRect())
    .filter((r) => r.width > 0 && r.height > 0);
}

/**
 * The toaster: bottom-right on wide screens (the forms sit on the left; the chat panel, when open, is kept clear
 * of as the focused control), across the bottom on phones (the header stays one row at the top); never over the
 * control in use nor, where the screen leaves room, over the rest of the form it is in (spec section 9: 330 px
 * wide).
 */
export function Toaster() {
  const toasts = useStore(toastStore);
  const ref = useRef<HTMLElement>(null);
  const lastFocused = useRef<Element | null>(null);
  const [style, setStyle] = useState<CSSProperties | undefined>(undefined);
  useLayoutEffect(() => {
    const place = () => {
      const toaster = ref.current;
      const focused = document.activeElement;
      if (focused && focused !== document.body) lastFocused.current = focused;
      // a button disabled while its transaction runs loses focus: the form it was in is still the work area
      const active = lastFocused.current?.isConnected ? lastFocused.current : null;
      if (!toaster || !active || toaster.contains(active)) return setStyle(undefined);
      toaster.style.top = "";
      toaster.style.bottom = "";
      const atBottom = getComputedStyle(toaster).bottom !== "auto";
      const header = document.querySelector(".app-header")?.getBoundingClientRect();
      const next = placeClearOfAll(
        toaster.getBoundingClientRect(),
        getWorkRects(active),
        atBottom,
        window.innerHeight,
        Math.max(8, (header?.bottom ?? 0) + 8),
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
