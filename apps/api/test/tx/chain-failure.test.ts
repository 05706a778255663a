// What the sender and the builder's simulation answer for a failed transaction: the program the logs show failing
// first says whose error it is (a CPI's code reaches the transaction as the lending instruction's Custom code).
import { MARGINFI_PROGRAM } from "@cistern/localnet";
import { SPL_ACCOUNT_COMPRESSION_PROGRAM_ADDRESS, TOKEN_AUTH_RULES_PROGRAM_ADDRESS } from "@cistern/sdk";
import { describe, expect, it } from "vitest";
import { describeChainFailure } from "../../src/tx/tx-errors.ts";

const LENDING = "HEGL93F2NhUp2uDxzdua99UiE5wyFuq58zgmZtoPxeMc";
const TOKEN_METADATA = "metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s";
const custom = (code: number, index = 2) => ({ InstructionError: [index, { Custom: code }] });
const failed = (program: string, code: number) =>
  `Program ${program} failed: custom program error: 0x${code.toString(16)}`;

describe("describeChainFailure", () => {
  it("a pNFT's rule set refusing (Token Auth Rules failing first, asked by the lending program or Token Metadata)", () => {
    const asked = (by: string[]) => [
      `Program ${LENDING} invoke [1]`,
      ...by.map((p, i) => `Program ${p} invoke [${i + 2}]`),
      "Program log: Instruction: Validate",
      `Program ${TOKEN_AUTH_RULES_PROGRAM_ADDRESS} invoke [${by.length + 2}]`,
      failed(TOKEN_AUTH_RULES_PROGRAM_ADDRESS, 0x20),
      ...by.map((p) => failed(p, 0x20)),
      failed(LENDING, 0x20),
    ];
    for (const logs of [asked([]), asked([TOKEN_METADATA])])
      expect(describeChainFailure(custom(0x20), logs, LENDING)).toEqual({
        code: 5006,
        name: "TRANSACTION_SEND_RULE_SET_REFUSED",
        message:
          "This NFT's rule set does not allow the transfers a loan needs, so it cannot be borrowed against.",
        params: {},
      });
  });

  it("another program's custom code is never named as a lending error (marginfi's 6017 is not InvalidPoolParams)", () => {
    const logs = [
      `Program ${LENDING} invoke [1]`,
      `Program ${MARGINFI_PROGRAM} invoke [2]`,
      failed(MARGINFI_PROGRAM, 6017),
      failed(LENDING, 6017),
    ];
    expect(describeChainFailure(custom(6017), logs, LENDING)).toEqual({
      code: 5004,
      name: "TRANSACTION_SEND_FAILED",
      message: "Marginfi refused this transaction (error 6017, StaleOracle).",
      params: { programId: MARGINFI_PROGRAM, programName: "marginfi", programCode: "6017" },
    });
  });

  it("without the failing line in the logs, the raiser is the failing instruction's program (InstructionError index)", () => {
    const truncated = [`Program ${LENDING} invoke [1]`, "Log truncated"];
    const ids = ["ComputeBudget111111111111111111111111111111", MARGINFI_PROGRAM];
    expect(describeChainFailure(custom(6017, 1), truncated, LENDING, ids)).toMatchObject({
      code: 5004,
      message: "Marginfi refused this transaction (error 6017, StaleOracle).",
    });
    expect(describeChainFailure(custom(6027, 1), truncated, LENDING, ["x", LENDING])).toMatchObject({
      code: 6027,
      name: "LtvExceeded",
    });
  });

  it("the lending program's own error keeps its code and name; a stale proof is 5005", () => {
    const own = [`Program ${LENDING} invoke [1]`, failed(LENDING, 6027)];
    expect(describeChainFailure(custom(6027), own, LENDING)).toMatchObject({
      code: 6027,
      name: "LtvExceeded",
    });
    // no logs: the code alone
    expect(describeChainFailure(custom(6027), [], LENDING)).toMatchObject({
      code: 6027,
      name: "LtvExceeded",
    });
    const stale = [
      `Program ${LENDING} invoke [1]`,
      failed(SPL_ACCOUNT_COMPRESSION_PROGRAM_ADDRESS, 6001),
      failed(LENDING, 6001),
    ];
    expect(describeChainFailure(custom(6001), stale, LENDING)).toMatchObject({ code: 5005 });
  });
});
