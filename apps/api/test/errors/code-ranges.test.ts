import { ERROR_CODE_RANGES, PROGRAM_ERRORS, ERROR_CODES as PROTOCOL_CODES } from "@cistern/protocol";
import { SDK_ERROR, SWAP_VENUE_ERRORS } from "@cistern/sdk";
import { describe, expect, it } from "vitest";
import { BOOTSTRAP_ERROR } from "../../../../packages/bootstrap/src/bootstrap-error.ts";
import { TOOLCHAIN_ERROR_CODES } from "../../../../programs/toolchain/src/errors.ts";
import { ERROR_CODES as API_CODES } from "../../src/errors/api-error.ts";

type Layer = keyof typeof ERROR_CODE_RANGES;
const inRange = (layer: Layer, code: number) =>
  ERROR_CODE_RANGES[layer].some(([first, last]) => code >= first && code <= last);

describe("one error vocabulary: each layer's codes live in its own range", () => {
  it("no two layers' ranges overlap", () => {
    const all = Object.entries(ERROR_CODE_RANGES).flatMap(([layer, ranges]) =>
      ranges.map(([first, last]) => ({ layer, first, last })),
    );
    for (const a of all)
      for (const b of all)
        if (a !== b) expect(a.last < b.first || b.last < a.first, `${a.layer} vs ${b.layer}`).toBe(true);
  });

  it("every table's codes fall in its layer's range", () => {
    const tables: [Layer, number[]][] = [
      ["protocol", Object.values(PROTOCOL_CODES)],
      ["program", Object.keys(PROGRAM_ERRORS).map(Number)],
      ["sdk", Object.values(SDK_ERROR)],
      ["bootstrap", Object.values(BOOTSTRAP_ERROR)],
      ["toolchain", Object.values(TOOLCHAIN_ERROR_CODES)],
      ["swapVenue", Object.values(SWAP_VENUE_ERRORS)],
    ];
    for (const [layer, codes] of tables)
      for (const code of codes) expect(inRange(layer, code), `${layer} ${code}`).toBe(true);
    // the API's own codes are 11xxx; the others it answers with are the protocol's client codes (same meaning)
    const protocolCodes = new Set<number>(Object.values(PROTOCOL_CODES));
    for (const code of Object.values(API_CODES))
      expect(inRange("api", code) || protocolCodes.has(code), `api ${code}`).toBe(true);
  });
});
