// sol_set_return_data / sol_get_return_data, read back through litesvm's returnData().
import { getAddressEncoder } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { buildFixture } from "./helpers/build-fixture.ts";
import { addProgram, createHarness, send, sendExpectingFailure } from "./helpers/svm.ts";

describe("return data", () => {
  it("returns the reversed instruction data, set by the program and read back inside it", async () => {
    const { so } = await buildFixture(["return-data"]);
    const h = await createHarness();
    const programId = await addProgram(h, so);
    for (const len of [1, 33, 700]) {
      const data = Buffer.alloc(len);
      for (let i = 0; i < len; i++) data[i] = (i * 7 + 3) & 255;
      const res = await send(h, [{ programAddress: programId, accounts: [], data }]);
      expect(Buffer.from(res.returnData().data())).toEqual(Buffer.from(data).reverse());
      expect(Buffer.from(res.returnData().programId())).toEqual(
        Buffer.from(getAddressEncoder().encode(programId)),
      );
      expect(res.logs()).toContain(`Program log: 0xda7a, 0x${len.toString(16)}, 0x0, 0x0, 0x0`);
    }
  });

  it("rejects more than 1024 bytes with the program's own error", async () => {
    const { so } = await buildFixture(["return-data"]);
    const h = await createHarness();
    const programId = await addProgram(h, so);
    const fail = await sendExpectingFailure(h, [
      { programAddress: programId, accounts: [], data: Buffer.alloc(1025) },
    ]);
    expect(fail.errText).toContain("InvalidInstructionData");
  });
});
