import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createJupiterSwapVenue } from "../../src/venues/swap/jupiter-swap-venue.ts";
import { toKitInstruction } from "../../src/venues/swap/swap-venue.ts";
import { startHttpServer } from "../helpers/http-server.ts";

const SOL = "So11111111111111111111111111111111111111112";
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const USER = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";

/** A quote response as Jupiter's swap API v1 documents it. */
const RECORDED_QUOTE = {
  inputMint: SOL,
  inAmount: "100000000",
  outputMint: USDC,
  outAmount: "16198753",
  otherAmountThreshold: "16117760",
  swapMode: "ExactIn",
  slippageBps: 50,
  platformFee: null,
  priceImpactPct: "0",
  routePlan: [
    {
      swapInfo: {
        ammKey: "5BKxfWMbmYBAEWvyPZS9esPducUba9GqyMjtLCfbaqyF",
        label: "Meteora DLMM",
        inputMint: SOL,
        outputMint: USDC,
        inAmount: "100000000",
        outAmount: "16198753",
        feeAmount: "24825",
        feeMint: SOL,
      },
      percent: 100,
    },
  ],
  contextSlot: 299283763,
  timeTaken: 0.015257836,
};

/** A swap-instructions response as documented (instructions with base64 data). */
const RECORDED_INSTRUCTIONS = {
  tokenLedgerInstruction: null,
  otherInstructions: [],
  computeBudgetInstructions: [
    { programId: "ComputeBudget111111111111111111111111111111", accounts: [], data: "AsBcFQA=" },
  ],
  setupInstructions: [],
  swapInstruction: {
    programId: "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4",
    accounts: [
      { pubkey: USER, isSigner: true, isWritable: true },
      { pubkey: USDC, isSigner: false, isWritable: false },
    ],
    data: "5RfLl3rjrSoBAAAAJmQAAQDh9QUAAAAAZCH2AAAAAAAyAAA=",
  },
  cleanupInstruction: null,
  addressLookupTableAddresses: ["GxS6FiQ3mNnAar9HGQ6mxP7t6FcwmHkU7peSeQDUHmpN"],
};

describe("the Jupiter swap venue adapter, against a server answering Jupiter's documented shapes", () => {
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  const bodies: string[] = [];
  beforeAll(async () => {
    server = await startHttpServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => {
        body += chunk;
      });
      req.on("end", () => {
        bodies.push(body);
        res.setHeader("content-type", "application/json");
        if (req.url?.startsWith("/quote")) return res.end(JSON.stringify(RECORDED_QUOTE));
        if (req.url?.startsWith("/swap-instructions")) return res.end(JSON.stringify(RECORDED_INSTRUCTIONS));
        res.statusCode = 404;
        res.end(JSON.stringify({ error: "not found" }));
      });
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("asks for direct routes without a platform fee and reads the quote", async () => {
    const venue = createJupiterSwapVenue({ basePath: server.url });
    const quote = await venue.quote({
      inputMint: SOL,
      outputMint: USDC,
      amount: 100_000_000,
      slippageBps: 50,
    });
    expect(quote).toMatchObject({ outAmount: "16198753", otherAmountThreshold: "16117760", slippageBps: 50 });
    const asked = new URL(server.requests.at(-1)!.split(" ")[1]!, server.url).searchParams;
    expect(Object.fromEntries(asked)).toMatchObject({
      inputMint: SOL,
      outputMint: USDC,
      amount: "100000000",
      slippageBps: "50",
      onlyDirectRoutes: "true",
      platformFeeBps: "0",
    });
  });

  it("asks for a dynamic compute-unit limit and turns the swap instruction into a kit instruction", async () => {
    const venue = createJupiterSwapVenue({ basePath: server.url });
    const r = await venue.swapInstructions({
      quoteResponse: RECORDED_QUOTE as never,
      userPublicKey: USER,
      destinationTokenAccount: USDC,
      sourceTokenAccount: USER,
    });
    const sent = JSON.parse(bodies.at(-1)!) as Record<string, unknown>;
    expect(sent).toMatchObject({
      userPublicKey: USER,
      dynamicComputeUnitLimit: true,
      destinationTokenAccount: USDC,
    });
    expect(sent.sourceTokenAccount).toBeUndefined();
    const ix = toKitInstruction(r.swapInstruction);
    expect(ix.programAddress).toBe("JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4");
    expect(ix.accounts?.map((a) => a.role)).toEqual([3, 0]);
    expect(Buffer.from(ix.data!).toString("base64")).toBe(RECORDED_INSTRUCTIONS.swapInstruction.data);
  });
});
