// Built .so files pass the BPF Upgradeable Loader's deploy-time verification and run once deployed.
import { describe, expect, it } from "vitest";
import { buildFixture } from "./helpers/build-fixture.ts";
import { deployUpgradeable, LOADER_V3 } from "./helpers/loader-v3.ts";
import { createHarness, readU64s, send, TxFailed, u64le } from "./helpers/svm.ts";

describe("deploy through the BPF Upgradeable Loader (DeployWithMaxDataLen)", () => {
  it("deploys hello and invokes it", async () => {
    const { so } = await buildFixture(["hello"]);
    const h = await createHarness();
    const programId = await deployUpgradeable(h, so);
    const account = h.svm.getAccount(programId);
    expect(account.exists && account.executable).toBe(true);
    expect(account.exists && account.programAddress).toBe(LOADER_V3);
    const res = await send(h, [{ programAddress: programId, accounts: [], data: new Uint8Array() }]);
    expect(res.logs()).toContain("Program log: hello from Cistern C");
  });

  it("deploys a two-object program with function pointers and cross-object calls and invokes it", async () => {
    const { so } = await buildFixture(["multi-a", "multi-b"]);
    const h = await createHarness();
    const programId = await deployUpgradeable(h, so);
    const res = await send(h, [{ programAddress: programId, accounts: [], data: u64le(7n) }]);
    expect(readU64s(res.returnData().data())).toEqual([19n, 14n, 49n, 4000n]);
  });

  it("deploys programs using many syscalls and the u128 helpers", async () => {
    const h = await createHarness();
    for (const name of ["escrow", "sdk-syscalls", "u128-ops", "many-accounts"]) {
      const { so } = await buildFixture([name]);
      const programId = await deployUpgradeable(h, so);
      expect(h.svm.getAccount(programId).exists, name).toBe(true);
    }
  });

  it("negative control: an ELF naming an unknown syscall is refused at deploy", async () => {
    const { so } = await buildFixture(["hello"]);
    const broken = Buffer.from(so);
    const at = broken.indexOf("sol_log_\0", 0, "latin1");
    expect(at).toBeGreaterThan(0);
    broken.write("sol_lox_", at, "latin1");
    const h = await createHarness();
    const err = await deployUpgradeable(h, broken).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TxFailed);
    expect((err as TxFailed).logs.join("\n")).toMatch(/ELF error|[Uu]nresolved symbol/);
  });
});
