import { createContext, useContext } from "react";
import type { Analytics } from "./analytics/analytics.ts";
import type { RuntimeConfig } from "./config/runtime-config.ts";

export interface AppContextValue {
  config: RuntimeConfig;
  /** The RPC URL in use: the user's setting or the configured default. */
  rpcUrl: string;
  analytics: Analytics;
  buildId: string;
}

export const AppContext = createContext<AppContextValue | null>(null);

/** The app's runtime config, RPC URL and analytics (throws outside the provider). */
export function useAppContext(): AppContextValue {
  const value = useContext(AppContext);
  if (value === null) throw new Error("useAppContext must be used inside <AppContext.Provider>");
  return value;
}
