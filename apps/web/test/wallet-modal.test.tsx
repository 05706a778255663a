import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { getPreferredLanguage, OTHER_LANGUAGES, translate } from "../src/wallet/modal/translations.ts";
import { WalletModal, type WalletModalProps } from "../src/wallet/modal/wallet-modal.tsx";
import { FakeAdapter, Installed, Loadable, NotDetected } from "./fake-adapter.ts";

afterEach(cleanup);

function renderModal(overrides: Partial<WalletModalProps> = {}) {
  const props: WalletModalProps = {
    adapters: [
      new FakeAdapter("My Wallet", Installed),
      new FakeAdapter("Phantom", NotDetected),
      new FakeAdapter("Solflare", NotDetected),
    ],
    previouslyConnected: [],
    theme: "dark",
    language: "en",
    explanationUrl: null,
    onSelect: vi.fn(),
    onNotInstalled: vi.fn(),
    onClose: vi.fn(),
    ...overrides,
  };
  render(<WalletModal {...props} />);
  return props;
}

describe("WalletModal", () => {
  it("shows the title, subtitle and a close button", () => {
    renderModal();
    expect(screen.getByRole("dialog", { name: "Connect Wallet" })).toBeTruthy();
    expect(screen.getByText("You need to connect a Solana wallet.")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Close" })).toBeTruthy();
  });

  it("groups 'Recently used' wallets, 3 up front, the rest under 'More wallets' in a grid", () => {
    const adapters = ["A", "B", "C", "D"].map((n) => new FakeAdapter(n, Installed));
    renderModal({ adapters, previouslyConnected: ["A", "B", "C", "D"] });
    expect(screen.getByText("Recently used")).toBeTruthy();
    const highlighted = document.querySelectorAll(".wallet-grid-highlight .wallet-item");
    expect([...highlighted].map((el) => el.textContent)).toEqual(["A", "B", "C"]);
    expect(screen.queryByTestId("more-wallets")).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: /More wallets/ }));
    const more = screen.getByTestId("more-wallets");
    expect(more.className).toContain("wallet-grid");
    expect(more.textContent).toBe("D");
  });

  it("recommends installed wallets with the top three", () => {
    renderModal({
      adapters: [
        new FakeAdapter("Backpack", NotDetected),
        new FakeAdapter("My Wallet", Installed),
        new FakeAdapter("Phantom", NotDetected),
      ],
    });
    expect(screen.getByText("Recommended wallets")).toBeTruthy();
    const highlighted = [...document.querySelectorAll(".wallet-grid-highlight .wallet-item")].map(
      (e) => e.textContent,
    );
    expect(highlighted).toEqual(["My Wallet", "Phantom", "Backpack"]);
  });

  it("selects an installed wallet", () => {
    const mine = new FakeAdapter("My Wallet", Installed);
    const props = renderModal({ adapters: [mine] });
    fireEvent.click(screen.getByRole("button", { name: "My Wallet" }));
    expect(props.onSelect).toHaveBeenCalledWith(mine);
  });

  it("opens the not-installed screen for a not-detected wallet and fires the notification", () => {
    const phantom = new FakeAdapter("Phantom", NotDetected);
    const props = renderModal({ adapters: [new FakeAdapter("My Wallet", Installed), phantom] });
    fireEvent.click(screen.getByRole("button", { name: "Phantom" }));
    expect(props.onNotInstalled).toHaveBeenCalledWith(phantom);
    expect(screen.getByText("Have you installed Phantom?")).toBeTruthy();
    const install = screen.getByRole("link", { name: /Install Phantom/ });
    expect(install.getAttribute("href")).toBe(phantom.url);
    expect(screen.getByText("On mobile:")).toBeTruthy();
    expect(screen.getByText("You should open the app instead")).toBeTruthy();
    expect(screen.getByText("On desktop:")).toBeTruthy();
    expect(screen.getByText("Install and refresh the page")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "I don't have a wallet" }));
    expect(screen.getByText("New here?")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "← Go back" }));
    expect(screen.getByRole("button", { name: "Phantom" })).toBeTruthy();
  });

  it("walks through onboarding with the exact texts and links", () => {
    renderModal();
    fireEvent.click(screen.getByRole("button", { name: "I don't have a wallet" }));
    expect(screen.getByText("New here?")).toBeTruthy();
    expect(screen.getByText("Welcome to DeFi! Create a crypto wallet to get started!")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Get Started" }));
    expect(screen.getByText("Popular wallets to get started")).toBeTruthy();
    const links = screen.getAllByRole("link").map((a) => a.textContent?.replace("↗", "").trim());
    expect(links).toEqual([
      "Phantom",
      "Solflare",
      "Backpack",
      "Magic Eden",
      "Coinbase Wallet",
      "OKX Wallet",
      "More wallets",
    ]);
    for (const link of screen.getAllByRole("link")) expect(link.getAttribute("target")).toBe("_blank");
    expect(screen.getByText("Once installed, refresh this page")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "← Go back" }));
    expect(screen.getByText("New here?")).toBeTruthy();
  });

  it("opens onboarding directly when no wallet is installed or loadable", () => {
    renderModal({ adapters: [new FakeAdapter("Phantom", NotDetected)] });
    expect(screen.getByText("New here?")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "← Go back" })).toBeNull();
  });

  it("shows 'Can't find your wallet?' only when an explanation link is configured", () => {
    renderModal();
    expect(screen.queryByText("Can't find your wallet?")).toBeNull();
    cleanup();
    renderModal({ explanationUrl: "https://docs.example/wallets" });
    expect(screen.getByRole("link", { name: "Can't find your wallet?" }).getAttribute("href")).toBe(
      "https://docs.example/wallets",
    );
  });

  it("shades the expanded list past 6 other wallets", () => {
    // Plain top-wallet list: 3 highlighted, the rest behind 'More wallets'.
    const adapters = Array.from({ length: 10 }, (_, i) => new FakeAdapter(`W${i}`, Loadable));
    renderModal({ adapters });
    fireEvent.click(screen.getByRole("button", { name: /More wallets/ }));
    expect(screen.getByTestId("more-wallets").children).toHaveLength(7);
    expect(screen.getByTestId("wallet-shade")).toBeTruthy();
    cleanup();
    renderModal({ adapters: adapters.slice(0, 9) });
    fireEvent.click(screen.getByRole("button", { name: /More wallets/ }));
    expect(screen.queryByTestId("wallet-shade")).toBeNull();
  });

  it("labels the mobile wallet adapter 'Mobile'", () => {
    renderModal({ adapters: [new FakeAdapter("Mobile Wallet Adapter", Installed)] });
    expect(screen.getByRole("button", { name: "Mobile" })).toBeTruthy();
  });

  it("closes on a mouse-up outside after the 150 ms fade, not inside", () => {
    vi.useFakeTimers();
    try {
      const props = renderModal();
      fireEvent.mouseUp(screen.getByText("You need to connect a Solana wallet."));
      act(() => vi.advanceTimersByTime(200));
      expect(props.onClose).not.toHaveBeenCalled();
      fireEvent.mouseUp(document.body);
      act(() => vi.advanceTimersByTime(149));
      expect(props.onClose).not.toHaveBeenCalled();
      act(() => vi.advanceTimersByTime(1));
      expect(props.onClose).toHaveBeenCalledTimes(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("applies the light, dark and jupiter themes", () => {
    for (const theme of ["light", "dark", "jupiter"] as const) {
      renderModal({ theme });
      expect(document.querySelector(`.wallet-theme-${theme}`)).toBeTruthy();
      cleanup();
    }
  });

  it("renders in French and Japanese", () => {
    renderModal({ language: "fr" });
    expect(screen.getByRole("dialog", { name: "Connecter le portefeuille" })).toBeTruthy();
    expect(screen.getByText("Vous devez connecter un portefeuille Solana.")).toBeTruthy();
    cleanup();
    renderModal({ language: "ja", adapters: [] });
    expect(screen.getByText("初めてですか？")).toBeTruthy();
  });
});

describe("translate", () => {
  it("returns English keys as is and 'not found' for an unknown key", () => {
    expect(translate("Connect Wallet", "en")).toBe("Connect Wallet");
    expect(translate("No such text", "ru")).toBe("not found");
  });

  it("translates every modal text into all six languages", () => {
    const keys = [
      "Connect Wallet",
      "You need to connect a Solana wallet.",
      "Recently used",
      "Recommended wallets",
      "More wallets",
      "Can't find your wallet?",
      "I don't have a wallet",
      "New here?",
      "Welcome to DeFi! Create a crypto wallet to get started!",
      "Get Started",
      "Popular wallets to get started",
      "Once installed, refresh this page",
      "Go back",
      "Have you installed",
      "Install",
      "On mobile:",
      "You should open the app instead",
      "On desktop:",
      "Install and refresh the page",
      "Mobile",
    ];
    for (const language of OTHER_LANGUAGES) {
      for (const key of keys) expect(translate(key, language), `${key} in ${language}`).not.toBe("not found");
    }
    expect(translate("Connect Wallet", "zh")).toBe("连接钱包");
    expect(translate("Go back", "vi")).toBe("Quay lại");
    expect(translate("Get Started", "id")).toBe("Mulai");
    expect(translate("Recently used", "ru")).toBe("Недавно использованные");
  });
});

describe("getPreferredLanguage", () => {
  it("picks the first supported browser language, else English", () => {
    expect(getPreferredLanguage(["de-DE", "fr-FR", "en"])).toBe("fr");
    expect(getPreferredLanguage(["zh-CN"])).toBe("zh");
    expect(getPreferredLanguage(["de"])).toBe("en");
    expect(getPreferredLanguage([])).toBe("en");
  });
});

describe("keyboard", () => {
  it("moves focus into the dialog and keeps Tab inside it", () => {
    renderModal({ adapters: [new FakeAdapter("My Wallet", Installed)] });
    const dialog = screen.getByRole("dialog");
    expect(document.activeElement).toBe(dialog);
    const buttons = [...dialog.querySelectorAll("button")];
    const last = buttons[buttons.length - 1]!;
    last.focus();
    fireEvent.keyDown(document, { key: "Tab" });
    expect(document.activeElement).toBe(buttons[0]);
    fireEvent.keyDown(document, { key: "Tab", shiftKey: true });
    expect(document.activeElement).toBe(last);
  });
});
