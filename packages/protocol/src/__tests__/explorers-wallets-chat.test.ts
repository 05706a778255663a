import { describe, expect, it } from "vitest";
import { getChatRetryDelayMs, isChatSocketCloseCode, shouldRetryChat } from "../chat.ts";
import {
  EXPLORER_NAMES,
  getExplorerAddressUrl,
  getExplorerTransactionUrl,
  parseExplorer,
} from "../explorers.ts";
import { parseTransactionBuildResponse } from "../transaction-kinds.ts";
import { getWalletModalLayout, sortWallets, type WalletEntry } from "../wallet-list.ts";

describe("explorers", () => {
  it("defaults to Solana Explorer and names the four explorers", () => {
    expect(parseExplorer("solscan")).toBe("solscan");
    expect(parseExplorer("etherscan")).toBe("solana-explorer");
    expect(parseExplorer(null)).toBe("solana-explorer");
    expect(Object.values(EXPLORER_NAMES)).toEqual(["Solana Explorer", "Solscan", "SolanaFM", "Solana Beach"]);
  });

  it("builds transaction and address links per cluster", () => {
    expect(getExplorerTransactionUrl("solana-explorer", "5sig")).toBe("https://explorer.solana.com/tx/5sig");
    expect(getExplorerTransactionUrl("solscan", "5sig", { cluster: "devnet" })).toBe(
      "https://solscan.io/tx/5sig?cluster=devnet",
    );
    expect(getExplorerTransactionUrl("solana-beach", "5sig")).toBe("https://solanabeach.io/transaction/5sig");
    expect(getExplorerAddressUrl("solscan", "Addr")).toBe("https://solscan.io/account/Addr");
    expect(getExplorerAddressUrl("solanafm", "Addr", { cluster: "devnet" })).toBe(
      "https://solana.fm/address/Addr?cluster=devnet-alpha",
    );
    expect(
      getExplorerTransactionUrl("solana-explorer", "5sig", {
        cluster: "localnet",
        customRpcUrl: "http://127.0.0.1:8899",
      }),
    ).toBe("https://explorer.solana.com/tx/5sig?cluster=custom&customUrl=http%3A%2F%2F127.0.0.1%3A8899");
  });
});

describe("wallet list", () => {
  const w = (name: string, readyState: WalletEntry["readyState"]): WalletEntry => ({ name, readyState });
  const all = [
    w("Glow", "NotDetected"),
    w("Solflare", "Loadable"),
    w("Backpack", "Installed"),
    w("Phantom", "Installed"),
    w("Ledger", "Unsupported"),
    w("Coinbase", "Loadable"),
  ];

  it("sorts Installed, Loadable, then the rest, by precedence", () => {
    expect(sortWallets(all, ["Phantom", "Solflare", "Backpack"]).map((x) => x.name)).toEqual([
      "Phantom",
      "Backpack",
      "Solflare",
      "Coinbase",
      "Glow",
      "Ledger",
    ]);
  });

  it("groups recent wallets first, highlighting 3", () => {
    const layout = getWalletModalLayout(all, ["Ledger", "Glow", "Coinbase", "Phantom", "Gone"]);
    expect(layout.kind).toBe("recent");
    if (layout.kind !== "recent") return;
    expect(layout.title).toBe("Recently used");
    expect(layout.highlighted.map((x) => x.name)).toEqual(["Ledger", "Glow", "Coinbase"]);
    expect(layout.others).toHaveLength(3);
    expect(layout.shadeOthers).toBe(false);
  });

  it("recommends installed wallets plus the top three preferred", () => {
    const layout = getWalletModalLayout(sortWallets(all));
    expect(layout.kind).toBe("recommended");
    if (layout.kind !== "recommended") return;
    expect(layout.title).toBe("Recommended wallets");
    expect(layout.highlighted.map((x) => x.name)).toEqual(["Backpack", "Phantom", "Solflare"]);
  });

  it("goes to onboarding without installed or loadable wallets, else top wallets", () => {
    expect(getWalletModalLayout([w("Glow", "NotDetected")]).kind).toBe("onboarding");
    const many = Array.from({ length: 10 }, (_, i) => w(`W${i}`, "Loadable"));
    const layout = getWalletModalLayout(many);
    expect(layout.kind).toBe("top");
    if (layout.kind !== "top") return;
    expect(layout.highlighted.map((x) => x.name)).toEqual(["W0", "W1", "W2"]);
    expect(layout.shadeOthers).toBe(true);
  });
});

describe("chat client", () => {
  it("backs off exponentially from 1 s with 300..3000 ms of jitter", () => {
    expect(getChatRetryDelayMs(0, () => 0)).toBe(1300);
    expect(getChatRetryDelayMs(2, () => 0)).toBe(4300);
    expect(getChatRetryDelayMs(1, () => 0.999999)).toBe(2000 + 2999);
    expect(shouldRetryChat(4)).toBe(true);
    expect(shouldRetryChat(5)).toBe(false);
    expect(isChatSocketCloseCode(4429)).toBe(true);
    expect(isChatSocketCloseCode(1000)).toBe(false);
  });
});

describe("transaction build response", () => {
  it("validates transactions, kind and block height", () => {
    expect(
      parseTransactionBuildResponse({
        transactions: ["AQID"],
        kind: "NormalCoSigned",
        lastValidBlockHeight: 123,
        metadata: { dynamicSlippageReport: { slippageBps: 50 } },
      }),
    ).toEqual({
      transactions: ["AQID"],
      kind: "NormalCoSigned",
      lastValidBlockHeight: 123,
      metadata: { dynamicSlippageReport: { slippageBps: 50 } },
    });
    expect(() => parseTransactionBuildResponse({ transactions: [], kind: "Normal" })).toThrowError(
      "No transactions provided",
    );
    expect(() =>
      parseTransactionBuildResponse({ transactions: ["AQID"], kind: "Weird", lastValidBlockHeight: 1 }),
    ).toThrowError("Unknown transaction kind");
  });
});
