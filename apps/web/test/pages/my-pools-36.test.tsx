import { Keypair } from "@solana/web3.js";
import { cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { submitLabel } from "../../src/features/my-pools/delegation-panel.tsx";
import { MyPoolsPage } from "../../src/features/my-pools/my-pools-page.tsx";
import { address, apiBank, apiPool, USDC_MINT } from "./fixtures.ts";
import { installApi, makeWallet, renderPage } from "./render-page.tsx";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("#36 delegation says what each control does and each pool shows what is its own", () => {
  it("labels the delegation button for what it does", () => {
    expect(submitLabel("", false, false)).toBe("Delegate");
    expect(submitLabel("", false, true)).toBe("Turn hourly re-delegation off");
    expect(submitLabel("", true, false)).toBe("Turn hourly re-delegation on");
    expect(submitLabel("100", true, true)).toBe("Delegate");
    expect(submitLabel("100", true, false)).toBe("Delegate and re-delegate hourly");
    expect(submitLabel("100", false, true)).toBe("Delegate and stop hourly re-delegation");
  });

  it("shows two pools of one bank with what each lends, not the bank's whole amount each; turns hourly re-delegation off with a button saying so", async () => {
    const owner = Keypair.generate();
    const me = owner.publicKey.toBase58();
    const bankKey = address();
    const bank = {
      ...apiBank(bankKey, me, USDC_MINT),
      totalLiquidity: "2500000000",
      availableLiquidity: "2200000000",
      borrowedLiquidity: "300000000",
    };
    const pool = (name: string, borrowed: string) =>
      apiPool({
        owner: me,
        bank: bankKey,
        metadata: { name, thumbnail: "", banks: [bankKey] },
        totalLiquidity: "2500000000",
        availableLiquidity: "2200000000",
        borrowedLiquidity: borrowed,
      });
    const requests = installApi((r) => {
      if (r.path === "/pool/get-by-owner")
        return {
          body: {
            pools: [pool("Apes desk", "100000000"), pool("Cats desk", "200000000")],
            banks: [bank],
            totalCount: 2,
          },
        };
      if (r.path === "/marginfi/bank")
        return {
          body: {
            isDelegationSupported: true,
            venueError: null,
            rateBps: 500,
            delegatedLiquidity: "0",
            positionValue: "0",
            earnedYield: "0",
            autoDelegate: true,
          },
        };
      if (r.method === "POST") return { status: 422, body: { code: 1, message: "refused" } };
      return undefined;
    });
    renderPage(<MyPoolsPage />, { wallet: makeWallet(owner) });
    const cards = await screen.findByTestId("my-pools");
    const lent = within(cards)
      .getAllByTestId("pool-lent")
      .map((d) => d.textContent);
    expect(lent).toEqual(["100 USDC", "200 USDC"]);
    expect(cards.textContent).not.toContain("2,500 USDC");
    for (const funds of within(cards).getAllByTestId("pool-funds"))
      expect(funds.textContent).toBe(
        "the bank it shares with 1 other pool: 2,200 USDC available to all of them",
      );
    // hourly re-delegation is on: turning it off is its own button, never "Delegate"
    const panel = await screen.findByTestId("delegation");
    expect(within(panel).getByTestId("hourly-state").textContent).toBe(
      "Hourly re-delegation is on for this bank.",
    );
    expect(within(panel).getByTestId("delegate-submit").textContent).toBe("Delegate");
    fireEvent.click(within(panel).getByRole("checkbox"));
    expect(within(panel).getByTestId("delegate-submit").textContent).toBe("Turn hourly re-delegation off");
    fireEvent.click(within(panel).getByTestId("hourly-off"));
    await waitFor(() => expect(requests.some((r) => r.path === "/bank/marginfi-deposit")).toBe(true));
    expect(requests.find((r) => r.path === "/bank/marginfi-deposit")!.body).toMatchObject({
      owner: me,
      amount: "0",
      autoDelegate: false,
    });
  });
});
