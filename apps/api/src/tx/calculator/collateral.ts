import { address, type CompressedCustody, decodeCoreAsset, MPL_CORE_PROGRAM_ADDRESS } from "@cistern/sdk";
import type { Address } from "@solana/kit";
import { getMetadataAddress, parseMetaplexMetadata } from "../../assets/metaplex-metadata.ts";
import { readCompressedCustody } from "../builder/nft-custody.ts";
import { findAssociatedTokenAddress } from "../builder/wire-instructions.ts";
import { ADDRESS_LOOKUP_TABLE_PROGRAM, decodeLookupTableAddresses } from "../chain/lookup-table-account.ts";
import type { TxContext } from "../tx-context.ts";
import { badRequest } from "../tx-errors.ts";

/**
 * An NFT's verified collection (Metaplex metadata) and, when `owner` is given, its token account; a Metaplex Core
 * asset's collection (the one its account names) and, with `owner`, the asset itself (its owner checked).
 */
export async function resolveNft(
  tx: TxContext,
  mint: string,
  owner?: string,
): Promise<{ collection: string; ownerTokenAccount?: Address; compressed?: CompressedCustody }> {
  const metadataAddress = await getMetadataAddress(mint);
  const ownerAta =
    owner === undefined ? undefined : await findAssociatedTokenAddress(address(owner), address(mint));
  const [metadata, asset, ata] = await tx.state.getAccounts(
    ownerAta ? [metadataAddress, mint, ownerAta] : [metadataAddress, mint],
  );
  if (asset && asset.owner === MPL_CORE_PROGRAM_ADDRESS) {
    const core = decodeCoreAsset(asset.data);
    if (core === null) throw badRequest(`${mint} is a Metaplex Core account but not an asset`);
    if (core.collection === null) throw badRequest(`Core asset ${mint} belongs to no collection`);
    if (owner !== undefined && core.owner !== owner)
      throw badRequest(`${owner} does not own Core asset ${mint}`);
    return {
      collection: core.collection,
      ...(owner !== undefined ? { ownerTokenAccount: address(mint) } : {}),
    };
  }
  if (!metadata && !asset) {
    // no account by this id: a compressed NFT's asset id, resolved through DAS (with a proof taken now)
    const compressed = await readCompressedCustody(tx, mint);
    if (compressed !== null) {
      if (compressed.collection === null)
        throw badRequest(`compressed NFT ${mint} has no verified collection`);
      if (owner !== undefined && compressed.owner !== owner)
        throw badRequest(`${owner} does not own compressed NFT ${mint}`);
      if (owner !== undefined && compressed.delegate !== owner)
        throw badRequest(`compressed NFT ${mint} has a delegate: revoke it before borrowing against it`);
      return {
        collection: compressed.collection,
        ...(owner !== undefined ? { ownerTokenAccount: compressed.tree } : {}),
        compressed,
      };
    }
  }
  const parsed = metadata ? parseMetaplexMetadata(metadata.data) : null;
  if (parsed === null) throw badRequest(`${mint} is not an NFT with Metaplex metadata`);
  if (parsed.collection === null || !parsed.collection.verified)
    throw badRequest(`NFT ${mint} has no verified collection`);
  if (ownerAta !== undefined) {
    // SPL token account: mint 0..32, owner 32..64, amount u64 at 64.
    const amount = ata && ata.data.length >= 72 ? Buffer.from(ata.data).readBigUInt64LE(64) : 0n;
    if (amount !== 1n) throw badRequest(`${owner} does not hold NFT ${mint} in its associated token account`);
  }
  return { collection: parsed.collection.key, ...(ownerAta ? { ownerTokenAccount: ownerAta } : {}) };
}

/** Members of the given whitelist lookup tables (tables that do not exist are left out). */
export async function readWhitelists(
  tx: TxContext,
  tables: readonly string[],
): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  if (tables.length === 0) return out;
  const accounts = await tx.state.getAccounts(tables);
  accounts.forEach((account, i) => {
    if (!account || account.owner !== ADDRESS_LOOKUP_TABLE_PROGRAM) return;
    out.set(tables[i]!, new Set(decodeLookupTableAddresses(account.data)));
  });
  return out;
}
