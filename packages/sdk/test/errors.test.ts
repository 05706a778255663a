import { readFileSync } from "node:fs";
import {
  getSolanaErrorFromJsonRpcError,
  getSolanaErrorFromTransactionError,
  SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM,
  SolanaError,
} from "@solana/kit";
import { describe, expect, it } from "vitest";
import { decodeLendingError, LENDING_ERROR_CODE, LENDING_ERRORS } from "../src/index.ts";
import { testAddress } from "./helpers.ts";

const program = testAddress(100);
const token = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";

const ltvLogs = [
  `Program ${program} invoke [1]`,
  "Program log: take-loan",
  `Program ${program} consumed 4321 of 200000 compute units`,
  `Program ${program} failed: custom program error: 0x178b`,
];

describe("LENDING_ERRORS", () => {
  it("mirrors every code and name of LAYOUT.md's error table, and nothing else", () => {
    const layout = readFileSync(new URL("../../../programs/lending/LAYOUT.md", import.meta.url), "utf8");
    const rows = [...layout.matchAll(/^\| (60\d\d) \| (\w+) +\|/gm)].map((m) => [Number(m[1]), m[2]]);
    expect(rows.length).toBeGreaterThanOrEqual(48);
    expect(Object.entries(LENDING_ERRORS).map(([code, e]) => [Number(code), e.name])).toEqual(rows);
    expect(new Set(Object.values(LENDING_ERRORS).map((e) => e.name)).size).toBe(rows.length);
    expect(LENDING_ERROR_CODE.LtvExceeded).toBe(6027);
    expect(LENDING_ERRORS[6046].name).toBe("LoanLiquidatable");
  });
});

describe("decodeLendingError", () => {
  it("reads the custom error from logs", () => {
    expect(decodeLendingError(ltvLogs, { programAddress: program })).toEqual({
      code: 6027,
      name: "LtvExceeded",
      message: "principal > collateral value x LTV",
      logLine: ltvLogs[3],
    });
    expect(decodeLendingError(ltvLogs)?.name).toBe("LtvExceeded");
  });

  it("does not blame the lending program for a token-program CPI failure", () => {
    const logs = [
      `Program ${program} invoke [1]`,
      `Program ${token} invoke [2]`,
      "Program log: Error: insufficient funds",
      `Program ${token} failed: custom program error: 0x1`,
      `Program ${program} failed: custom program error: 0x1`,
    ];
    expect(decodeLendingError(logs, { programAddress: program })).toBeNull();
  });

  it("ignores failures of other programs and unknown codes", () => {
    const other = [`Program ${testAddress(5)} failed: custom program error: 0x1770`];
    expect(decodeLendingError(other, { programAddress: program })).toBeNull();
    expect(
      decodeLendingError([`Program ${program} failed: custom program error: 0x2`], {
        programAddress: program,
      }),
    ).toBeNull();
    expect(decodeLendingError(["Program log: ok"])).toBeNull();
    expect(decodeLendingError(undefined)).toBeNull();
    expect(decodeLendingError(42)).toBeNull();
  });

  it("reads a kit preflight-failure error (logs in the context)", () => {
    const error = getSolanaErrorFromJsonRpcError({
      code: -32002,
      message: "Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1791",
      data: {
        accounts: null,
        err: { InstructionError: [0, { Custom: 6033 }] },
        logs: [`Program ${program} invoke [1]`, `Program ${program} failed: custom program error: 0x1791`],
        unitsConsumed: 1000,
        returnData: null,
      },
    });
    expect(decodeLendingError(error, { programAddress: program })?.name).toBe("LoanNotOngoing");
  });

  it("names no lending error when the logs show another program failed (a CPI's code, e.g. marginfi's 6017)", () => {
    const marginfi = testAddress(7);
    const error = getSolanaErrorFromJsonRpcError({
      code: -32002,
      message: "Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1781",
      data: {
        accounts: null,
        err: { InstructionError: [0, { Custom: 6017 }] },
        logs: [
          `Program ${program} invoke [1]`,
          `Program ${marginfi} invoke [2]`,
          `Program ${marginfi} failed: custom program error: 0x1781`,
          `Program ${program} failed: custom program error: 0x1781`,
        ],
        unitsConsumed: 1000,
        returnData: null,
      },
    });
    expect(decodeLendingError(error, { programAddress: program })).toBeNull();
    // marginfi's own instruction failing with 6017, sent alone: not the lending program's either
    const alone = getSolanaErrorFromJsonRpcError({
      code: -32002,
      message: "Transaction simulation failed",
      data: {
        accounts: null,
        err: { InstructionError: [0, { Custom: 6017 }] },
        logs: [`Program ${marginfi} invoke [1]`, `Program ${marginfi} failed: custom program error: 0x1781`],
        unitsConsumed: 1000,
        returnData: null,
      },
    });
    expect(decodeLendingError(alone, { programAddress: program })).toBeNull();
  });

  it("reads a kit instruction error (code in the context) and an RPC TransactionError", () => {
    const error = getSolanaErrorFromTransactionError({ InstructionError: [1, { Custom: 6020 }] });
    expect(decodeLendingError(error)?.name).toBe("ProtocolPaused");
    const direct = new SolanaError(SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM, { code: 6022, index: 0 });
    expect(decodeLendingError(direct)?.name).toBe("StaleAttestation");
    expect(decodeLendingError({ err: { InstructionError: [0, { Custom: 6016 }] } })?.name).toBe(
      "InsufficientLiquidity",
    );
  });

  it("reads logs carried by a plain error and a LiteSVM-style result", () => {
    const web3Style = Object.assign(new Error("Simulation failed"), { logs: ltvLogs });
    expect(decodeLendingError(web3Style, { programAddress: program })?.code).toBe(6027);
    const litesvmStyle = { meta: () => ({ logs: () => ltvLogs }), err: () => ({}) };
    expect(decodeLendingError(litesvmStyle, { programAddress: program })?.code).toBe(6027);
    expect(decodeLendingError(ltvLogs.join("\n"))?.code).toBe(6027);
  });
});
