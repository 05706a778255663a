import { createStore, useStore } from "./create-store.ts";

/** The current URL (path + query); changes on navigate() and on back/forward. */
export const locationStore = createStore<string>(typeof window === "undefined" ? "/" : window.location.href);

let listening = false;

/** Starts tracking back/forward navigation. */
export function listenToHistory(): void {
  if (listening) return;
  listening = true;
  window.addEventListener("popstate", () => locationStore.set(window.location.href));
}

/** Client-side navigation: a new page opens at its top (back and forward keep the browser's position). */
export function navigate(to: string): void {
  window.history.pushState(null, "", to);
  locationStore.set(window.location.href);
  if (!to.includes("#")) window.scrollTo({ top: 0, left: 0 });
}

export function useLocationHref(): string {
  return useStore(locationStore);
}
