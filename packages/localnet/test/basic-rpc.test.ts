import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpc, startTestLocalnet } from "./helpers.ts";

describe("startLocalnet basics", () => {
  let net: Awaited<ReturnType<typeof startTestLocalnet>>;
  beforeAll(async () => {
    net = await startTestLocalnet({ seed: false });
  });
  afterAll(async () => {
    await net.cleanup();
  });

  it("serves health, version and a moving slot", async () => {
    expect((await rpc(net.rpcUrl, "getHealth")).result).toBe("ok");
    expect((await rpc(net.rpcUrl, "getVersion")).result).toMatchObject({ "solana-core": expect.any(String) });
    const s1 = (await rpc(net.rpcUrl, "getSlot")).result as number;
    await new Promise((r) => setTimeout(r, 250));
    const s2 = (await rpc(net.rpcUrl, "getSlot")).result as number;
    expect(s2).toBeGreaterThan(s1);
  });

  it("airdrops lamports with a real signed transaction", async () => {
    const to = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
    const sig = await net.airdrop(to, 1_500_000_000n);
    const bal = await rpc(net.rpcUrl, "getBalance", [to]);
    expect((bal.result as { value: number }).value).toBe(1_500_000_000);
    const st = await rpc(net.rpcUrl, "getSignatureStatuses", [[sig]]);
    expect((st.result as { value: unknown[] }).value[0]).toMatchObject({
      err: null,
      confirmationStatus: "finalized",
    });
  });
});
