import { lazy, Suspense, useEffect, useRef } from "react";

const SettingsPanel = lazy(() => import("../settings/settings-panel.tsx"));

/** The side panel (drawer on the right) holding the settings; its content loads on first open. */
export function SidePanel({ open, onClose }: { open: boolean; onClose(): void }) {
  const panelRef = useRef<HTMLElement>(null);
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") onClose();
    };
    const onMouseUp = (event: MouseEvent) => {
      const panel = panelRef.current;
      if (panel && event.target instanceof Node && !panel.contains(event.target)) onClose();
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("mouseup", onMouseUp);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("mouseup", onMouseUp);
    };
  }, [open, onClose]);
  if (!open) return null;
  return (
    <div className="side-panel-backdrop">
      <aside className="side-panel" aria-label="Settings panel" ref={panelRef}>
        <button type="button" className="side-panel-close" aria-label="Close settings" onClick={onClose}>
          ×
        </button>
        <Suspense fallback={<p className="muted">Loading…</p>}>
          <SettingsPanel />
        </Suspense>
      </aside>
    </div>
  );
}
