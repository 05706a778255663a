import { useState } from "react";
import { useNewVersionAvailable } from "./update-check.ts";

/** The website-update banner: shown when the server runs a newer build than this page. */
export function UpdateBanner({ buildId }: { buildId: string }) {
  const available = useNewVersionAvailable(buildId);
  const [dismissed, setDismissed] = useState(false);
  if (!available || dismissed) return null;
  return (
    <div className="update-banner" role="status">
      <span>A new version of the website is available.</span>
      <button type="button" className="button button-small" onClick={() => window.location.reload()}>
        Refresh
      </button>
      <button type="button" className="banner-close" aria-label="Dismiss" onClick={() => setDismissed(true)}>
        ×
      </button>
    </div>
  );
}
