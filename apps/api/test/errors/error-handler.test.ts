import { CisternError, ERROR_CODES as PROTOCOL_CODES } from "@cistern/protocol";
import { address, SOLANA_ERROR__ADDRESSES__STRING_LENGTH_OUT_OF_RANGE, SolanaError } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { ApiError, ERROR_CODES } from "../../src/errors/api-error.ts";
import { toErrorResponse } from "../../src/errors/error-handler.ts";
import { isSolanaAddress } from "../../src/http/schemas.ts";

describe("error mapping", () => {
  it("maps protocol errors to 400/404/422 with their message", () => {
    expect(
      toErrorResponse(new CisternError(PROTOCOL_CODES.INVALID_PUBLIC_KEY, { value: "x" })),
    ).toMatchObject({
      status: 400,
      body: { code: 7000 },
    });
    expect(toErrorResponse(new CisternError(PROTOCOL_CODES.UNKNOWN_POOL_TYPE)).body).toEqual({
      code: 3000,
      name: "UNKNOWN_POOL_TYPE",
      message: "Unknown pool type",
      params: {},
    });
    expect(
      toErrorResponse(new CisternError(PROTOCOL_CODES.INVALID_PUBLIC_KEY, { value: "x" })).body.params,
    ).toEqual({
      value: "x",
    });
    expect(toErrorResponse(new CisternError(PROTOCOL_CODES.IMAGE_URL_REJECTED, { url: "u" })).status).toBe(
      422,
    );
  });

  it("maps @solana/kit's invalid-address error to a 400, never a 500", () => {
    let thrown: unknown;
    try {
      address("z".repeat(44));
    } catch (error) {
      thrown = error;
    }
    const mapped = toErrorResponse(thrown);
    expect(mapped.status).toBe(400);
    expect(mapped.body.code).toBe(ERROR_CODES.INVALID_INPUT);
    expect(mapped.body.message).toMatch(/^Invalid address: .*32/);
    expect(
      toErrorResponse(
        new SolanaError(SOLANA_ERROR__ADDRESSES__STRING_LENGTH_OUT_OF_RANGE, { actualLength: 3 }),
      ).status,
    ).toBe(400);
    expect(isSolanaAddress("z".repeat(44))).toBe(false);
    expect(isSolanaAddress("1".repeat(44))).toBe(false);
    expect(isSolanaAddress("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v")).toBe(true);
  });

  it("never leaks internals in a 5xx", () => {
    const internal = toErrorResponse(new Error("connect ECONNREFUSED 10.0.0.5:5432 password=secret"));
    expect(internal).toEqual({
      status: 500,
      body: { code: 11099, name: "INTERNAL", message: "Internal server error", params: {} },
    });
    const upstream = toErrorResponse(
      new ApiError(ERROR_CODES.UPSTREAM_FAILED, "RPC http://secret-host failed"),
    );
    expect(upstream).toEqual({
      status: 502,
      body: { code: 11000, name: "UPSTREAM_FAILED", message: "Upstream service unavailable", params: {} },
    });
  });

  it("keeps client-error messages", () => {
    expect(toErrorResponse(new ApiError(ERROR_CODES.INVALID_PUBKEY, "bad key"))).toEqual({
      status: 400,
      body: { code: 7000, name: "INVALID_PUBKEY", message: "bad key", params: {} },
    });
  });

  it("answers a rule-book refusal with the program's code, name and params", () => {
    const error = Object.assign(new ApiError(ERROR_CODES.UNPROCESSABLE, "No pool can lend ..."), {
      refusal: { code: 6027, name: "LtvExceeded", params: { maxAmount: "5", mint: "m" } },
    });
    expect(toErrorResponse(error)).toEqual({
      status: 422,
      body: {
        code: 6027,
        name: "LtvExceeded",
        message: "No pool can lend ...",
        params: { maxAmount: "5", mint: "m" },
      },
    });
  });
});
