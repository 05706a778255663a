import { describe, expect, it } from "vitest";
import { marginfiBankRefusal, marginfiBankStateOf } from "../marginfi-bank-state.ts";
import { PROGRAM_ERROR_CODE } from "../program-errors.ts";

describe("marginfi's bank states (the rule the program and the API share)", () => {
  it("reads the state byte, unknown beyond KilledByBankruptcy", () => {
    expect([0, 1, 2, 3, 4, 255].map(marginfiBankStateOf)).toEqual([
      "paused",
      "operational",
      "reduceOnly",
      "killedByBankruptcy",
      "unknown",
      "unknown",
    ]);
  });

  it("deposits need Operational; withdrawals go in Operational and ReduceOnly; Paused and a killed bank refuse both", () => {
    const table = (["paused", "operational", "reduceOnly", "killedByBankruptcy", "unknown"] as const).map(
      (s) => [s, marginfiBankRefusal(s, "deposit"), marginfiBankRefusal(s, "withdraw")],
    );
    expect(table).toEqual([
      ["paused", "VenuePaused", "VenuePaused"],
      ["operational", null, null],
      ["reduceOnly", "VenueReduceOnly", null],
      ["killedByBankruptcy", "VenueBankrupt", "VenueBankrupt"],
      ["unknown", "VenueStateUnknown", null],
    ]);
    expect(PROGRAM_ERROR_CODE.VenuePaused).toBe(6061);
    expect(PROGRAM_ERROR_CODE.VenueStateUnknown).toBe(6065);
  });
});
