import { cleanup, render, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Link } from "../src/kit/page-kit.tsx";
import { setRoutePrefetcher } from "../src/kit/prefetch.ts";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  setRoutePrefetcher(() => undefined);
});

describe("link prefetch (the spec's 200 px margin)", () => {
  it("loads a link's page code once the link comes within 200 px of the screen, once", async () => {
    const observers: { callback: IntersectionObserverCallback; options?: IntersectionObserverInit }[] = [];
    vi.stubGlobal(
      "IntersectionObserver",
      class {
        constructor(callback: IntersectionObserverCallback, options?: IntersectionObserverInit) {
          observers.push({ callback, ...(options ? { options } : {}) });
        }
        observe() {}
        disconnect() {}
      },
    );
    const loaded: string[] = [];
    setRoutePrefetcher((path) => loaded.push(path));
    render(<Link to="/borrow?tab=token">Borrow</Link>);
    expect(observers[0]!.options?.rootMargin).toBe("200px");
    expect(loaded).toEqual([]);
    observers[0]!.callback(
      [{ isIntersecting: true } as IntersectionObserverEntry],
      {} as IntersectionObserver,
    );
    await waitFor(() => expect(loaded).toEqual(["/borrow"]));
  });
});
