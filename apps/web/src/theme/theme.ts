import { createStore, useStore } from "../lib/create-store.ts";
import { readStorage, writeStorage } from "../lib/storage.ts";

export type Theme = "dark" | "light";

/** localStorage key of the theme (spec section 9). */
export const THEME_STORAGE_KEY = "color-theme";

/** The stored theme; anything but "light" means the default, dark. */
export function getStoredTheme(): Theme {
  return readStorage(THEME_STORAGE_KEY) === "light" ? "light" : "dark";
}

export const themeStore = createStore<Theme>(getStoredTheme());

/** Applies a theme to the document (CSS variables switch on data-theme) and stores it. */
export function setTheme(theme: Theme): void {
  writeStorage(THEME_STORAGE_KEY, theme);
  document.documentElement.dataset.theme = theme;
  themeStore.set(theme);
}

/** The current theme and a toggle. */
export function useTheme(): { theme: Theme; toggleTheme: () => void } {
  const theme = useStore(themeStore);
  return { theme, toggleTheme: () => setTheme(theme === "dark" ? "light" : "dark") };
}
