import { Keypair } from "@solana/web3.js";
import { cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MarginPage } from "../../src/features/margin/margin-page.tsx";
import { address, apiPool, SOL_MINT } from "./fixtures.ts";
import { installApi, makeWallet, renderPage } from "./render-page.tsx";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("#36 margin shows the pool it uses and lets the user choose", () => {
  it("defaults to the cheapest pool for the leverage asked, shows it, and sends the chosen pool", async () => {
    const jup = address();
    const entry = [{ collection: jup, collectionLtv: 5000, exposure: 10000, borrowedAmount: "0" }];
    const pool = (name: string) =>
      apiPool({
        type: "defi-pool",
        currency: SOL_MINT,
        metadata: { name, thumbnail: "", banks: [address()] },
        collections: entry,
      });
    const dear = pool("Dear desk");
    const cheap = pool("Cheap desk");
    const margin = (p: { pubkey: string }, apr: number, leverage: number) => ({
      pool: p.pubkey,
      currency: SOL_MINT,
      apr,
      leverage,
      maxLeverage: 2,
      downPayment: "1000000000",
      principal: String(Math.round((leverage - 1) * 1e9)),
      expectedCollateral: "1000",
      minimumCollateral: "990",
      priceImpactPct: "0",
      slippageBps: 100,
    });
    const requests = installApi((r) => {
      if (r.path === "/dirty/pools") return { body: { pools: [dear, cheap], banks: [], totalCount: 2 } };
      if (r.path === "/currency/currencies")
        return { body: { [jup]: { metadata: { symbol: "JUP", name: "Jupiter", decimals: 6 } } } };
      // the dear pool lends the same 2x as the cheap one: the highest leverage is no reason to pick it
      if (r.path === "/defi/multi-quote")
        return { body: { quotes: [], margins: [margin(dear, 4000, 2), margin(cheap, 1500, 2)] } };
      if (r.path === "/swap/v1/quote")
        return { body: { outAmount: "1000", otherAmountThreshold: "990", priceImpactPct: "0" } };
      if (r.method === "POST" && r.path === "/defi/margin-swap")
        return { status: 422, body: { code: 1, message: "refused" } };
      return undefined;
    });
    renderPage(<MarginPage />, {
      wallet: makeWallet(Keypair.generate()),
      lamports: 10_000_000_000n,
    });
    fireEvent.change(await screen.findByLabelText(/Down payment/), { target: { value: "1" } });
    const shown = await screen.findByTestId("margin-pool");
    expect(shown.textContent).toBe("From Cheap desk at 15% APR");
    const choices = screen.getByTestId("margin-pools");
    const options = within(choices).getAllByTestId("margin-pool-option");
    expect(options.map((o) => o.textContent?.trim())).toEqual([
      "Cheap desk 15% APR, up to 2.00x · cheapest for this leverage",
      "Dear desk 40% APR, up to 2.00x",
    ]);
    expect(screen.getByTestId("margin-principal").textContent).toContain("at 15% APR");
    // the user picks the other pool: the terms and the transaction follow
    fireEvent.click(within(options[1]!).getByRole("radio"));
    await waitFor(() =>
      expect(screen.getByTestId("margin-pool").textContent).toBe("From Dear desk at 40% APR"),
    );
    expect(screen.getByTestId("margin-principal").textContent).toContain("at 40% APR");
    await waitFor(() => expect(screen.getByTestId("margin-submit").hasAttribute("disabled")).toBe(false));
    fireEvent.click(screen.getByTestId("margin-submit"));
    await waitFor(() => expect(requests.some((r) => r.path === "/defi/margin-swap")).toBe(true));
    expect(requests.find((r) => r.path === "/defi/margin-swap")!.body).toMatchObject({ pool: dear.pubkey });
  });
});
