import { describe, expect, it } from "vitest";
import { groupWallets, sortWallets } from "../src/wallet/wallet-groups.ts";
import { FakeAdapter, Installed, Loadable, NotDetected, Unsupported } from "./fake-adapter.ts";

const names = (list: { name: string }[]) => list.map((a) => a.name);

describe("groupWallets", () => {
  const phantom = new FakeAdapter("Phantom", NotDetected);
  const solflare = new FakeAdapter("Solflare", NotDetected);
  const backpack = new FakeAdapter("Backpack", NotDetected);
  const glow = new FakeAdapter("Glow", NotDetected);
  const trust = new FakeAdapter("Trust", Loadable);

  it("highlights the first 3 previously connected wallets as 'Recently used'", () => {
    const a = new FakeAdapter("A", Installed);
    const b = new FakeAdapter("B", Installed);
    const c = new FakeAdapter("C", Installed);
    const d = new FakeAdapter("D", Installed);
    const groups = groupWallets([phantom, a, b, c, d], ["D", "C", "B", "A"]);
    expect(groups.highlightedBy).toBe("PreviouslyConnected");
    expect(names(groups.highlight)).toEqual(["D", "C", "B"]);
    expect(names(groups.others)).toEqual(["A", "Phantom"]);
  });

  it("recommends installed wallets plus Phantom, Solflare and Backpack", () => {
    const installed = new FakeAdapter("Dev", Installed);
    const groups = groupWallets([glow, backpack, installed, solflare, phantom, trust], []);
    expect(groups.highlightedBy).toBe("TopAndRecommended");
    expect(names(groups.highlight)).toEqual(["Dev", "Phantom", "Solflare", "Backpack"]);
    expect(names(groups.others)).toEqual(["Trust", "Glow"]);
  });

  it("shows the plain top-wallet list when nothing is installed", () => {
    const groups = groupWallets([glow, phantom, trust], []);
    expect(groups.highlightedBy).toBe("TopWallet");
    expect(names(groups.highlight)).toEqual(["Phantom"]);
    expect(names(groups.others)).toEqual(["Trust", "Glow"]);
  });

  it("goes straight to onboarding when no wallet can be loaded", () => {
    expect(groupWallets([], []).highlightedBy).toBe("Onboarding");
    expect(groupWallets([new FakeAdapter("X", Unsupported)], []).highlightedBy).toBe("Onboarding");
  });
});

describe("sortWallets", () => {
  it("orders Installed, Loadable, then NotDetected/Unsupported, then by precedence", () => {
    const list = [
      new FakeAdapter("n1", NotDetected),
      new FakeAdapter("l1", Loadable),
      new FakeAdapter("i1", Installed),
      new FakeAdapter("n2", NotDetected),
      new FakeAdapter("i2", Installed),
    ];
    expect(names(sortWallets(list))).toEqual(["i1", "i2", "l1", "n1", "n2"]);
    expect(names(sortWallets(list, ["n2", "i2"]))).toEqual(["i2", "i1", "l1", "n2", "n1"]);
  });
});
