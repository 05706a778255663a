import { UPDATE_CHECK_INTERVAL_MS } from "@cistern/protocol";
import { useEffect, useState } from "react";

/** Asks the app server for the deployed build id; null when the check fails. */
export async function fetchDeployedBuildId(
  fetchImpl: typeof fetch = globalThis.fetch,
): Promise<string | null> {
  try {
    const response = await fetchImpl("/api/build-id", { cache: "no-store" });
    if (!response.ok) return null;
    const body = (await response.json()) as { buildId?: unknown };
    return typeof body.buildId === "string" ? body.buildId : null;
  } catch {
    return null;
  }
}

/**
 * True once the server reports a build id different from this bundle's: checked at start and every
 * 10 minutes. A failed check changes nothing.
 */
export function useNewVersionAvailable(ownBuildId: string, intervalMs = UPDATE_CHECK_INTERVAL_MS): boolean {
  const [available, setAvailable] = useState(false);
  useEffect(() => {
    let cancelled = false;
    const check = async () => {
      const deployed = await fetchDeployedBuildId();
      if (!cancelled && deployed !== null && deployed !== ownBuildId) setAvailable(true);
    };
    void check();
    const timer = setInterval(check, intervalMs);
    return () => {
      cancelled = true;
      clearInterval(timer);
    };
  }, [ownBuildId, intervalMs]);
  return available;
}
