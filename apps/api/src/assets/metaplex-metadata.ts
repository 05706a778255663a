import { addressFromBytes, findProgramDerivedAddress } from "@cistern/sdk";
import { type Address, getAddressEncoder } from "@solana/kit";

export const TOKEN_METADATA_PROGRAM = "metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s";

/** The fields of a Metaplex Token Metadata account the API uses. */
export interface MetaplexMetadata {
  mint: string;
  updateAuthority: string;
  name: string;
  symbol: string;
  uri: string;
  /** Token standard byte (0 NonFungible, 4 ProgrammableNonFungible ...), null when absent. */
  tokenStandard: number | null;
  collection: { key: string; verified: boolean } | null;
}

/** Derives the metadata PDA ["metadata", program, mint]. */
export async function getMetadataAddress(mint: string): Promise<string> {
  const encoder = getAddressEncoder();
  const [address] = await findProgramDerivedAddress({
    programAddress: TOKEN_METADATA_PROGRAM as Address,
    seeds: ["metadata", encoder.encode(TOKEN_METADATA_PROGRAM as Address), encoder.encode(mint as Address)],
  });
  return address;
}

class Reader {
  private offset = 0;
  constructor(private readonly data: Uint8Array) {}
  u8(): number {
    if (this.offset >= this.data.length) throw new Error("metadata truncated");
    return this.data[this.offset++]!;
  }
  u16(): number {
    return this.u8() | (this.u8() << 8);
  }
  u32(): number {
    return (this.u16() | (this.u16() << 16)) >>> 0;
  }
  pubkey(): string {
    if (this.offset + 32 > this.data.length) throw new Error("metadata truncated");
    const key = addressFromBytes(this.data.subarray(this.offset, this.offset + 32));
    this.offset += 32;
    return key;
  }
  string(): string {
    const length = this.u32();
    if (this.offset + length > this.data.length) throw new Error("metadata truncated");
    const text = Buffer.from(this.data.subarray(this.offset, this.offset + length)).toString("utf8");
    this.offset += length;
    // Metaplex pads fixed-size strings with NUL bytes.
    return text.replace(/\0+$/, "");
  }
  bool(): boolean {
    return this.u8() !== 0;
  }
}

/**
 * Parses Metaplex Token Metadata account data (Borsh: key, update authority, mint, data{name, symbol, uri,
 * seller fee, creators}, primary sale, mutable, edition nonce, token standard, collection ...).
 * Returns null for data that is not a Metadata account (key 4).
 */
export function parseMetaplexMetadata(data: Uint8Array): MetaplexMetadata | null {
  try {
    const r = new Reader(data);
    if (r.u8() !== 4) return null;
    const updateAuthority = r.pubkey();
    const mint = r.pubkey();
    const name = r.string();
    const symbol = r.string();
    const uri = r.string();
    r.u16(); // seller fee basis points
    if (r.bool()) {
      const creators = r.u32();
      for (let i = 0; i < creators; i++) {
        r.pubkey();
        r.u8();
        r.u8();
      }
    }
    r.bool(); // primary sale happened
    r.bool(); // is mutable
    if (r.bool()) r.u8(); // edition nonce
    let tokenStandard: number | null = null;
    let collection: MetaplexMetadata["collection"] = null;
    try {
      if (r.bool()) tokenStandard = r.u8();
      if (r.bool()) {
        const verified = r.bool();
        collection = { verified, key: r.pubkey() };
      }
    } catch {
      // Old metadata versions end before token standard / collection.
    }
    return { mint, updateAuthority, name, symbol, uri, tokenStandard, collection };
  } catch {
    return null;
  }
}
