import { getMetadataAddress as getLocalnetMetadataAddress } from "@cistern/localnet";
import { encodeMetadata } from "@cistern/sdk";
import { getAddressEncoder } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { getMetadataAddress, parseMetaplexMetadata } from "../../src/assets/metaplex-metadata.ts";
import { randomAddress } from "../helpers/fixtures.ts";

describe("Metaplex metadata", () => {
  it("derives the same PDA as the localnet and reads what it writes", async () => {
    const mint = randomAddress();
    expect(await getMetadataAddress(mint)).toBe(await getLocalnetMetadataAddress(mint));
  });

  it("rejects data that is not a metadata account", () => {
    expect(parseMetaplexMetadata(new Uint8Array([1, 2, 3]))).toBeNull();
    expect(parseMetaplexMetadata(new Uint8Array(0))).toBeNull();
  });

  it("parses name, symbol, uri and the verified collection of an account in the Metaplex layout", () => {
    const mint = randomAddress();
    const collection = randomAddress();
    const encoder = getAddressEncoder();
    const data = encodeMetadata({
      updateAuthority: new Uint8Array(encoder.encode(randomAddress())),
      mint: new Uint8Array(encoder.encode(mint)),
      name: "Cistern Otters #3",
      symbol: "OTTR",
      uri: "data:image/svg+xml,<svg/>",
      sellerFeeBasisPoints: 500,
      creators: [{ address: new Uint8Array(encoder.encode(randomAddress())), verified: true, share: 100 }],
      collection: { verified: true, key: new Uint8Array(encoder.encode(collection)) },
      collectionSize: null,
    });
    expect(parseMetaplexMetadata(data)).toMatchObject({
      mint,
      name: "Cistern Otters #3",
      symbol: "OTTR",
      uri: "data:image/svg+xml,<svg/>",
      collection: { verified: true, key: collection },
    });
  });
});
