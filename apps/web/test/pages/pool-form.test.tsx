import { USDC_MINT } from "@cistern/protocol";
import { Keypair } from "@solana/web3.js";
import { cleanup, fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CreatePoolPage } from "../../src/features/my-pools/my-pools-page.tsx";
import { PoolFormView } from "../../src/features/my-pools/pool-form.tsx";
import { emptyPoolForm, validatePoolForm } from "../../src/features/my-pools/pool-form-model.ts";
import { address, apiBank } from "./fixtures.ts";
import { type Exchange, installApi, makeWallet, renderPage } from "./render-page.tsx";

const collection = address();

const bankOf: Record<string, unknown[]> = {};

function catalogue(extra: (r: Exchange) => { status?: number; body: unknown } | undefined = () => undefined) {
  return installApi((r) => {
    if (r.path === "/collection/collections") {
      return {
        body: [
          {
            collectionId: collection,
            metadata: { collectionName: "Cistern Cats", thumbnail: "" },
            floorPrice: "5000000000",
            supply: 10,
            currentLoan: 0,
          },
        ],
      };
    }
    if (r.path === "/currency/currencies") return { body: {} };
    if (r.path === "/pool/get-by-owner") {
      return { body: { pools: [], banks: bankOf[r.query.get("owner") ?? ""] ?? [], totalCount: 0 } };
    }
    return extra(r);
  });
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const field = (label: RegExp) => screen.getByLabelText(label) as HTMLInputElement;

describe("pool form", () => {
  it("shows a message per bad field and sends nothing", async () => {
    const requests = catalogue();
    const onSubmit = vi.fn(async () => undefined);
    renderPage(
      <PoolFormView
        mode="create"
        initial={emptyPoolForm("nft-pool", USDC_MINT)}
        busy={false}
        onSubmit={onSubmit}
      />,
    );
    fireEvent.change(field(/APR/), { target: { value: "abc" } });
    fireEvent.click(screen.getByTestId("pool-submit"));
    expect(await screen.findByText("Enter how much to put in the pool.")).toBeTruthy();
    expect(screen.getByText("APR must be a number.")).toBeTruthy();
    expect(screen.getByText("Maximum loan (USD) is required.")).toBeTruthy();
    expect(screen.getByText("Add at least one collection.")).toBeTruthy();
    expect(screen.getByText("Give the pool a name.")).toBeTruthy();
    expect(screen.getByTestId("form-summary").textContent).toBe("Fix 5 fields above.");
    expect(onSubmit).not.toHaveBeenCalled();
    expect(requests.filter((r) => r.method === "POST")).toEqual([]);
  });

  it("says a negative number must be positive, marks required fields and names the rate APR", () => {
    const errors = validatePoolForm(
      {
        ...emptyPoolForm("nft-pool", USDC_MINT),
        amount: "-5",
        apy: "-2",
        durationDays: "-1",
        maxAmountUsd: "-3",
      },
      "create",
    );
    expect(errors).toMatchObject({
      amount: "The amount must be positive.",
      apy: "APR must be positive.",
      durationDays: "Duration must be positive.",
      maxAmountUsd: "Maximum loan (USD) must be positive.",
    });
    renderPage(
      <PoolFormView
        mode="create"
        initial={emptyPoolForm("nft-pool", USDC_MINT)}
        busy={false}
        onSubmit={vi.fn()}
      />,
    );
    expect(screen.getByText("APR (%)").parentElement?.textContent).toContain("(required)");
    expect(screen.queryByText(/APY/)).toBeNull();
  });

  it("checks amounts against the currency minimum, the wallet and the USD range", () => {
    const form = {
      ...emptyPoolForm("nft-pool", USDC_MINT),
      name: "Cats desk",
      amount: "19.99",
      apy: "20",
      maxAmountUsd: "5",
      minAmountUsd: "10",
      collateral: [{ key: "a", id: collection, ltv: "101", exposure: "0" }],
    };
    expect(validatePoolForm(form, "create")).toEqual({
      amount: "Deposit at least 20 USDC.",
      maxAmountUsd: "Maximum loan must be at least the minimum loan.",
      "collateral.0.ltv": "LTV must be at most 100.",
      "collateral.0.exposure": "Exposure must be at least 1.",
    });
    expect(
      validatePoolForm({ ...form, amount: "50", maxAmountUsd: "500", collateral: [] }, "create", {
        walletBalance: 40_000_000n,
      }).amount,
    ).toBe("Your wallet holds 40 USDC.");
    const privateForm = { ...form, isPrivate: true, whitelist: "nope", whitelistAddresses: "bad-address" };
    const errors = validatePoolForm(privateForm, "update");
    expect(errors.whitelist).toBe("Enter the whitelist (lookup table) address.");
    expect(errors.whitelistAddresses).toBe("Not a wallet address: bad-address");
    expect(errors.amount).toBeUndefined();
  });

  it("checks conditions and the whitelist when editing a pool", async () => {
    const requests = catalogue();
    const onSubmit = vi.fn(async () => undefined);
    renderPage(
      <PoolFormView
        mode="update"
        initial={{
          ...emptyPoolForm("nft-pool", USDC_MINT),
          apy: "30",
          maxAmountUsd: "1000",
          collateral: [{ key: "k", id: collection, ltv: "50", exposure: "100" }],
        }}
        busy={false}
        onSubmit={onSubmit}
      />,
    );
    fireEvent.click(screen.getByLabelText("Borrower conditions"));
    fireEvent.change(field(/Minimum wallet age/), { target: { value: "2.5" } });
    fireEvent.click(screen.getByLabelText(/Private loans/));
    fireEvent.click(screen.getByTestId("pool-submit"));
    expect(await screen.findByText("Minimum wallet age must be a whole number.")).toBeTruthy();
    // the program stores compounding and the liquidation threshold but never reads them: no control for them
    expect(screen.queryByLabelText(/Liquidation threshold/)).toBeNull();
    // an nft-pool's auto-sell fills the NFT market's best collection bid
    expect(screen.getByText(/sold to the best collection offer into your bank/)).toBeTruthy();
    expect(screen.queryByText(/Compounding/)).toBeNull();
    expect(screen.getByText("Enter the whitelist (lookup table) address.")).toBeTruthy();
    expect(onSubmit).not.toHaveBeenCalled();
    fireEvent.change(field(/Minimum wallet age/), { target: { value: "3" } });
    fireEvent.click(screen.getByLabelText(/Private loans/));
    fireEvent.click(screen.getByTestId("pool-submit"));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(requests.filter((r) => r.method === "POST")).toEqual([]);
  });

  it("opens the bank with the deposit first when the lender has none", async () => {
    const owner = Keypair.generate();
    const requests = catalogue((r) =>
      r.path === "/bank/deposit" ? { status: 422, body: { code: 1, message: "Builder refused" } } : undefined,
    );
    renderPage(<CreatePoolPage />, {
      wallet: makeWallet(owner),
      tokens: [{ mint: USDC_MINT, amount: 1_000_000_000n, decimals: 6 }],
    });
    expect((await screen.findByTestId("first-bank-note")).textContent).toContain("two signatures");
    fireEvent.change(field(/Pool name/), { target: { value: "Cats desk" } });
    fireEvent.change(field(/Amount to lend/), { target: { value: "100" } });
    fireEvent.change(field(/APR/), { target: { value: "20" } });
    fireEvent.change(field(/Maximum loan/), { target: { value: "500" } });
    fireEvent.click(screen.getByText("Add collection"));
    await screen.findByText("Cistern Cats");
    fireEvent.change(screen.getByLabelText("Collection"), { target: { value: collection } });
    fireEvent.click(screen.getByTestId("pool-submit"));
    await waitFor(() => expect(requests.some((r) => r.path === "/bank/deposit")).toBe(true));
    expect(requests.find((r) => r.path === "/bank/deposit")!.body).toMatchObject({
      owner: owner.publicKey.toBase58(),
      mint: USDC_MINT,
      amount: "100000000",
    });
    await waitFor(() => expect(screen.getByTestId("pool-submit").hasAttribute("disabled")).toBe(false));
    expect(requests.some((r) => r.path === "/nft/create-pool")).toBe(false);
  });

  it("creates a pool on the lender's bank: the builder receives the protocol's creation payload", async () => {
    const owner = Keypair.generate();
    const bank = address();
    bankOf[owner.publicKey.toBase58()] = [apiBank(bank, owner.publicKey.toBase58())];
    const requests = catalogue((r) =>
      r.path === "/nft/create-pool"
        ? { status: 422, body: { code: 1, message: "Builder refused" } }
        : undefined,
    );
    renderPage(<CreatePoolPage />, {
      wallet: makeWallet(owner),
      tokens: [{ mint: USDC_MINT, amount: 1_000_000_000n, decimals: 6 }],
    });
    await waitFor(() => expect(requests.some((r) => r.path === "/pool/get-by-owner")).toBe(true));
    fireEvent.change(field(/Pool name/), { target: { value: "Cats desk" } });
    fireEvent.change(field(/Amount to lend/), { target: { value: "250.5" } });
    fireEvent.change(field(/APR/), { target: { value: "36.5" } });
    fireEvent.change(field(/Maximum duration/), { target: { value: "14" } });
    fireEvent.change(field(/Maximum loan/), { target: { value: "2000" } });
    fireEvent.click(screen.getByText("Add collection"));
    await screen.findByText("Cistern Cats");
    fireEvent.change(screen.getByLabelText("Collection"), { target: { value: collection } });
    fireEvent.change(screen.getByLabelText("LTV (%)"), { target: { value: "60" } });
    fireEvent.change(screen.getByLabelText("Exposure (%)"), { target: { value: "40" } });
    fireEvent.click(screen.getByTestId("pool-submit"));
    await waitFor(() => expect(requests.some((r) => r.path === "/nft/create-pool")).toBe(true));
    const body = requests.find((r) => r.path === "/nft/create-pool")!.body!;
    expect(body).toMatchObject({
      owner: owner.publicKey.toBase58(),
      amount: "250500000",
      mint: USDC_MINT,
      param: {
        apr: 3650,
        limits: { minDuration: 86400, maxDuration: 14 * 86400, maxAmountUsd: 2000, minAmountUsd: 10 },
        collections: [{ collection, collectionLtv: 6000, exposure: 4000 }],
      },
      bank,
    });
  });
});
