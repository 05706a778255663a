import { describe, expect, it } from "vitest";
import { describeErrorForUser } from "../error-sentences.ts";
import {
  customErrorOfResult,
  decodeProgramFailure,
  describeOtherProgramFailure,
  isStaleProof,
  PROGRAM_IDS,
} from "../program-failure.ts";

const LENDING = "7bFdYBF5dsYPTR9JwEtFQYZTbsTkYH6Ao3qADdg6DGyG";
const BUBBLEGUM = PROGRAM_IDS.bubblegum;
const COMPRESSION = PROGRAM_IDS.splAccountCompression;

/** the logs of a lending instruction whose CPI chain failed in `raiser` with `code` */
const cpiFailure = (raiser: string, code: number, via: string[] = []) => [
  `Program ${LENDING} invoke [1]`,
  ...via.map((p, i) => `Program ${p} invoke [${i + 2}]`),
  `Program ${raiser} invoke [${via.length + 2}]`,
  `Program ${raiser} failed: custom program error: 0x${code.toString(16)}`,
  ...[...via].reverse().map((p) => `Program ${p} failed: custom program error: 0x${code.toString(16)}`),
  `Program ${LENDING} failed: custom program error: 0x${code.toString(16)}`,
];

describe("decodeProgramFailure: a custom code with the program that raised it", () => {
  it("SPL Account Compression's 6001 (through Bubblegum) is the compression program's, not the lending program's NotEnoughAccounts", () => {
    const logs = cpiFailure(COMPRESSION, 6001, [BUBBLEGUM]);
    const err = { InstructionError: [1, { Custom: 6001 }] };
    const f = decodeProgramFailure({ err, logs, lendingProgramId: LENDING });
    expect(f).toMatchObject({
      programId: COMPRESSION,
      programName: "SPL Account Compression",
      code: 6001,
      name: "ConcurrentMerkleTreeError",
      lending: false,
      instructionIndex: 1,
    });
    expect(isStaleProof(f!)).toBe(true);
    expect(describeOtherProgramFailure(f!)).toBe(
      "The compressed NFT changed on chain since this transaction was built. Please try again.",
    );
  });

  it("the lending program's own 6001 is NotEnoughAccounts", () => {
    const logs = [`Program ${LENDING} invoke [1]`, `Program ${LENDING} failed: custom program error: 0x1771`];
    const f = decodeProgramFailure({
      err: { InstructionError: [0, { Custom: 6001 }] },
      logs,
      lendingProgramId: LENDING,
    });
    expect(f).toMatchObject({ programId: LENDING, code: 6001, name: "NotEnoughAccounts", lending: true });
    expect(f!.programName).toBe("the lending program");
  });

  it("the token program's InsufficientFunds (1) inside a lending instruction is the token program's", () => {
    const f = decodeProgramFailure({
      err: { InstructionError: [0, { Custom: 1 }] },
      logs: cpiFailure(PROGRAM_IDS.splToken, 1),
      lendingProgramId: LENDING,
    });
    expect(f).toMatchObject({
      programId: PROGRAM_IDS.splToken,
      code: 1,
      name: "InsufficientFunds",
      lending: false,
    });
    expect(describeOtherProgramFailure(f!)).toBe(
      "The SPL Token program refused this transaction (error 1, InsufficientFunds).",
    );
  });

  it("marginfi's 6017 StaleOracle is marginfi's, never the lending program's 6017 InvalidPoolParams", () => {
    const f = decodeProgramFailure({
      err: { InstructionError: [0, { Custom: 6017 }] },
      logs: cpiFailure(PROGRAM_IDS.marginfi, 6017),
      lendingProgramId: LENDING,
    });
    expect(f).toMatchObject({ programId: PROGRAM_IDS.marginfi, name: "StaleOracle", lending: false });
    const sentence = describeOtherProgramFailure(f!);
    expect(sentence).toBe("Marginfi refused this transaction (error 6017, StaleOracle).");
    expect(sentence).not.toContain(PROGRAM_IDS.marginfi);
  });

  it("without a failing line in the logs (truncated, or none), the failing instruction's program: by the InstructionError index", () => {
    const ids = ["ComputeBudget111111111111111111111111111111", PROGRAM_IDS.marginfi, LENDING];
    const logs = ["Program ComputeBudget111111111111111111111111111111 invoke [1]", "Log truncated"];
    expect(
      decodeProgramFailure({
        err: { InstructionError: [1, { Custom: 6017 }] },
        logs,
        instructionProgramIds: ids,
        lendingProgramId: LENDING,
      }),
    ).toMatchObject({ programId: PROGRAM_IDS.marginfi, lending: false, name: "StaleOracle" });
    // LiteSVM's text form of the same result
    expect(
      decodeProgramFailure({
        err: "InstructionError(2, Custom(6049))",
        instructionProgramIds: ids,
        lendingProgramId: LENDING,
      }),
    ).toMatchObject({ programId: LENDING, lending: true, name: "SaleShort", instructionIndex: 2 });
    // an unknown program: named generically, never by address
    const f = decodeProgramFailure({
      err: { InstructionError: [0, { Custom: 7 }] },
      instructionProgramIds: ["Stranger1111111111111111111111111111111111"],
      lendingProgramId: LENDING,
    });
    expect(describeOtherProgramFailure(f!)).toBe("Another program refused this transaction (error 7).");
  });

  it("nothing to decode: no custom code; the raiser unknown without logs or instructions", () => {
    expect(decodeProgramFailure({ err: "BlockhashNotFound" })).toBeNull();
    expect(decodeProgramFailure({ err: { InstructionError: [0, "InvalidAccountData"] } })).toBeNull();
    expect(decodeProgramFailure({ err: { InstructionError: [0, { Custom: 6027 }] } })).toMatchObject({
      programId: "",
      lending: null,
    });
    expect(customErrorOfResult({ index: 3, code: 6001 })).toEqual({ index: 3, code: 6001 });
  });

  it("the user's sentence of the API's coded failure for another program's error names the program, not the lending table", () => {
    const f = decodeProgramFailure({
      err: { InstructionError: [0, { Custom: 6001 }] },
      logs: cpiFailure(PROGRAM_IDS.marginfi, 6001),
      lendingProgramId: LENDING,
    })!;
    const body = {
      code: 5004,
      name: "TRANSACTION_SEND_FAILED",
      message: describeOtherProgramFailure(f),
      params: {},
    };
    expect(describeErrorForUser(body, { amount: () => "" })).toBe(
      "Marginfi refused this transaction (error 6001).",
    );
  });
});
