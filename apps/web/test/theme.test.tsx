import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { getStoredTheme, setTheme, THEME_STORAGE_KEY, useTheme } from "../src/theme/theme.ts";

function ThemeSwitch() {
  const { theme, toggleTheme } = useTheme();
  return (
    <button type="button" onClick={toggleTheme}>
      {theme}
    </button>
  );
}

afterEach(() => {
  cleanup();
  act(() => setTheme("dark"));
  localStorage.clear();
});

describe("theme", () => {
  it("defaults to dark", () => {
    localStorage.clear();
    expect(getStoredTheme()).toBe("dark");
    localStorage.setItem(THEME_STORAGE_KEY, "purple");
    expect(getStoredTheme()).toBe("dark");
  });

  it("switches to light, storing color-theme and setting data-theme", () => {
    render(<ThemeSwitch />);
    fireEvent.click(screen.getByRole("button", { name: "dark" }));
    expect(screen.getByRole("button").textContent).toBe("light");
    expect(localStorage.getItem("color-theme")).toBe("light");
    expect(document.documentElement.dataset.theme).toBe("light");
    expect(getStoredTheme()).toBe("light");
  });

  it("uses a dark blue page background for dark and light cyan for light", async () => {
    const { readFile } = await import("node:fs/promises");
    const { join } = await import("node:path");
    const css = await readFile(join(__dirname, "../src/styles.css"), "utf8");
    expect(css).toMatch(/:root \{[^}]*--bg: #0b1530; \/\* dark blue \*\//);
    expect(css).toMatch(/:root\[data-theme="light"\] \{[^}]*--bg: #e0f7fa; \/\* light cyan \*\//);
    expect(css).toMatch(/body \{[^}]*background: var\(--bg\)/);
  });
});
