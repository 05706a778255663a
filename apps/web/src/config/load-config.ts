import {
  CONFIG_ELEMENT_ID,
  DEFAULT_RUNTIME_CONFIG,
  parseRuntimeConfig,
  type RuntimeConfig,
} from "./runtime-config.ts";

/**
 * The runtime config: inlined by the app server into index.html, else GET /config.json, else (vite
 * dev server without the app server) the development defaults.
 */
export async function loadRuntimeConfig(): Promise<RuntimeConfig> {
  const inline = document.getElementById(CONFIG_ELEMENT_ID)?.textContent;
  if (inline) return parseRuntimeConfig(JSON.parse(inline));
  try {
    const response = await fetch("/config.json", { cache: "no-store" });
    if (response.ok && response.headers.get("content-type")?.includes("json")) {
      return parseRuntimeConfig(await response.json());
    }
  } catch {
    // Fall through to the defaults.
  }
  return DEFAULT_RUNTIME_CONFIG;
}
