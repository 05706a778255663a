import { randomBytes } from "node:crypto";
import { getBase58Decoder } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { decodeBase58, encodeBase58 } from "../src/base58.ts";
import { parseInstruction } from "../src/instruction-parse.ts";
import { generateLocalKeypair } from "../src/keypair.ts";
import { formatUiAmount } from "../src/token-layout.ts";
import { getMetadataAddress } from "../src/token-metadata.ts";
import { buildSignedTransaction } from "../src/tx-builder.ts";
import { parseWireTransaction } from "../src/wire.ts";
import { getAssociatedTokenAddress } from "../src/world-admin.ts";

describe("codecs", () => {
  it("fast base58 equals @solana/kit's for random inputs, leading zeros included", () => {
    const kit = getBase58Decoder();
    for (let i = 0; i < 3000; i++) {
      const len = [0, 1, 2, 3, 31, 32, 33, 64][i % 8]!;
      const b = randomBytes(len);
      if (i % 3 === 0 && len > 2) b[0] = b[1] = 0;
      expect(encodeBase58(b)).toBe(kit.decode(b));
      expect(Buffer.from(decodeBase58(encodeBase58(b)))).toEqual(b);
    }
  });

  it("sync PDA derivation matches spl-token's ATA and kit's program-derived addresses", async () => {
    const { getAssociatedTokenAddressSync } = await import("@solana/spl-token");
    const { PublicKey } = await import("@solana/web3.js");
    const { address, getProgramDerivedAddress, getAddressEncoder } = await import("@solana/kit");
    for (let i = 0; i < 5; i++) {
      const owner = generateLocalKeypair().address;
      const mint = generateLocalKeypair().address;
      expect(getAssociatedTokenAddress(owner, mint)).toBe(
        getAssociatedTokenAddressSync(new PublicKey(mint), new PublicKey(owner)).toBase58(),
      );
      const [kitPda] = await getProgramDerivedAddress({
        programAddress: address("metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s"),
        seeds: [
          "metadata",
          getAddressEncoder().encode(address("metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s")),
          getAddressEncoder().encode(address(mint)),
        ],
      });
      expect(getMetadataAddress(mint)).toBe(kitPda);
    }
  });

  it("parses transferChecked and leaves unknown instructions to the partially decoded form", () => {
    const d = new Uint8Array(10);
    d[0] = 12;
    new DataView(d.buffer).setBigUint64(1, 1_250_000n, true);
    d[9] = 6;
    expect(parseInstruction("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", d, ["s", "m", "d", "a"])).toEqual({
      program: "spl-token",
      programId: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
      parsed: {
        type: "transferChecked",
        info: {
          authority: "a",
          destination: "d",
          mint: "m",
          source: "s",
          tokenAmount: { amount: "1250000", decimals: 6, uiAmount: 1.25, uiAmountString: "1.25" },
        },
      },
      stackHeight: null,
    });
    expect(
      parseInstruction("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", Uint8Array.of(12, 1), ["s"]),
    ).toBeNull();
    expect(
      parseInstruction("11111111111111111111111111111111", Uint8Array.of(99, 0, 0, 0), ["a"]),
    ).toBeNull();
    expect(parseInstruction("Vote111111111111111111111111111111111111111", Uint8Array.of(1), [])).toBeNull();
  });

  it("formats token amounts exactly (uiAmountString)", () => {
    expect(formatUiAmount(0n, 6)).toBe("0");
    expect(formatUiAmount(1n, 6)).toBe("0.000001");
    expect(formatUiAmount(1_250_000n, 6)).toBe("1.25");
    expect(formatUiAmount(18_446_744_073_709_551_615n, 9)).toBe("18446744073.709551615");
    expect(formatUiAmount(42n, 0)).toBe("42");
  });

  it("builds legacy transactions the wire parser reads back, and rejects truncated bytes", () => {
    const payer = generateLocalKeypair();
    const other = generateLocalKeypair();
    const bytes = buildSignedTransaction(
      payer,
      [
        {
          programId: new Uint8Array(32),
          keys: [
            { pubkey: payer.publicKey, isSigner: true, isWritable: true },
            { pubkey: other.publicKey, isSigner: true, isWritable: false },
          ],
          data: new Uint8Array([2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]),
        },
      ],
      new Uint8Array(32).fill(7),
      [other],
    );
    const tx = parseWireTransaction(bytes);
    expect(tx.version).toBe("legacy");
    expect(tx.signatures).toHaveLength(2);
    expect(tx.numRequiredSignatures).toBe(2);
    expect(tx.numReadonlySigned).toBe(1);
    expect(encodeBase58(tx.staticKeys[0]!)).toBe(payer.address);
    expect(tx.instructions[0]!.accounts).toEqual([0, 1]);
    expect(() => parseWireTransaction(bytes.subarray(0, bytes.length - 1))).toThrow(/failed to deserialize/);
    expect(() => parseWireTransaction(new Uint8Array([0]))).toThrow();
  });
});
