import { describe, expect, it } from "vitest";
import { getLoanType, NFT_TYPE_BYTE, nftStandardOf } from "../src/custody/nft-standard.ts";

describe("Loan.nftType (byte 7): each standard's byte, both ways", () => {
  it("reads the four bytes the program writes, and a token loan is Token", () => {
    for (const [standard, byte] of Object.entries(NFT_TYPE_BYTE)) expect(nftStandardOf(byte)).toBe(standard);
    expect(nftStandardOf(3)).toBe("CompressedNft");
    expect(getLoanType({ isDefi: false, nftType: "CompressedNft" })).toBe("CompressedNft");
    expect(getLoanType({ isDefi: true, nftType: "Nft" })).toBe("Token");
  });
});
