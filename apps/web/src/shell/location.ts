import { createStore, useStore } from "../lib/create-store.ts";

/** The current URL (path + query); changes on navigate() and on back/forward. */
export const locationStore = createStore<string>(typeof window === "undefined" ? "/" : window.location.href);

let listening = false;

/** Starts tracking back/forward navigation. */
export function listenToHistory(): void {
  if (listening) return;
  listening = true;
  window.addEventListener("popstate", () => locationStore.set(window.location.href));
}

/** Client-side navigation. */
export function navigate(to: string): void {
  window.history.pushState(null, "", to);
  locationStore.set(window.location.href);
}

export function useLocationHref(): string {
  return useStore(locationStore);
}
