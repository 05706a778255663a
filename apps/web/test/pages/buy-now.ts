import { fireEvent, waitFor } from "@testing-library/react";
import { expect } from "vitest";
import type { Exchange } from "./render-page.tsx";

/**
 * Clicks the open Buy now panel's Pay button (within `card`, the page by default) once it names `pay`, and returns
 * the body the page then posted to POST /nft/buy.
 */
export async function payBuyNow(
  requests: Exchange[],
  pay: string,
  card: ParentNode = document,
): Promise<Record<string, unknown> | null> {
  const submit = () => card.querySelector<HTMLButtonElement>("[data-testid=buy-now-submit]");
  await waitFor(() => expect(submit()?.textContent).toBe(pay));
  fireEvent.click(submit()!);
  await waitFor(() => expect(requests.find((r) => r.path === "/nft/buy")).toBeDefined());
  return requests.find((r) => r.path === "/nft/buy")!.body;
}
