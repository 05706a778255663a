/**
 * The off-chain JSON metadata of the demo NFTs (Metaplex token standard: name, symbol, description, image,
 * attributes, properties.files, properties.category), as a hosted NFT's `uri` points to one. Each demo NFT's on-chain
 * uri is `http://127.0.0.1:8899/metadata/<id>.json` ({@link getDemoMetadataUri}); the localnet serves that path on
 * its RPC port (GET, any port) and its DAS index reads the same document without a network round trip, as a hosted
 * DAS reads the uri it fetched once. The document follows from the asset itself (its id, on-chain name and
 * collection): the demo collection it belongs to gives the image colour, the `#n` of its name the number.
 */
import {
  DEMO_COLLECTIONS,
  DEMO_COMPRESSED_COLLECTIONS,
  DEMO_CORE_COLLECTIONS,
  DEMO_PROGRAMMABLE_COLLECTIONS,
  getDemoImage,
} from "../demo-world.ts";

/** Where `npm start`'s localnet serves the documents (its default RPC port); the uri the demo seed writes on chain. */
export const DEMO_METADATA_BASE_URL = "http://127.0.0.1:8899/metadata/";

/** The path the localnet serves a document at (on whatever port it listens). */
export const METADATA_PATH = /^\/metadata\/([1-9A-HJ-NP-Za-km-z]{32,44})\.json$/;

/** The on-chain uri of a demo asset's document. */
export function getDemoMetadataUri(id: string): string {
  return `${DEMO_METADATA_BASE_URL}${id}.json`;
}

/** The asset id a localnet metadata uri names (any host and port), or null for any other uri. */
export function metadataUriId(uri: string): string | null {
  const m = /^https?:\/\/[^/]+(\/metadata\/[^?#]*)$/.exec(uri);
  return m ? (METADATA_PATH.exec(m[1]!)?.[1] ?? null) : null;
}

/** A Metaplex token-standard JSON document. */
export interface MetadataDocument {
  name: string;
  symbol: string;
  description: string;
  image: string;
  attributes: { trait_type: string; value: string }[];
  properties: { files: { uri: string; type: string }[]; category: "image" };
}

/** What the document is made from: the asset as the chain holds it. */
export interface AssetFacts {
  id: string;
  name: string;
  symbol: string;
  /** The collection it is grouped under (a collection mint or Core collection address), or null. */
  collection: string | null;
  standard: "NonFungible" | "ProgrammableNonFungible" | "Core" | "Compressed";
}

interface DemoGroup {
  id: string;
  name: string;
  symbol: string;
  color: string;
  image: string;
}

const colorOf = (image: string) => image.match(/%23([0-9a-f]{6})/)?.[1] ?? "444444";

let groups: Map<string, DemoGroup> | null = null;
function demoGroups(): Map<string, DemoGroup> {
  if (groups) return groups;
  groups = new Map();
  for (const c of [...DEMO_COLLECTIONS, ...DEMO_PROGRAMMABLE_COLLECTIONS, ...DEMO_CORE_COLLECTIONS])
    groups.set(c.collectionId, {
      id: c.collectionId,
      name: c.name,
      symbol: c.symbol,
      color: colorOf(c.image),
      image: c.image,
    });
  for (const c of DEMO_COMPRESSED_COLLECTIONS)
    groups.set(c.collectionId, {
      id: c.collectionId,
      name: c.name,
      symbol: c.symbol,
      color: c.itemColor,
      image: c.image,
    });
  return groups;
}

const STANDARD_LABEL: Record<AssetFacts["standard"], string> = {
  NonFungible: "Token Metadata NFT",
  ProgrammableNonFungible: "programmable NFT (Token Metadata)",
  Core: "Metaplex Core asset",
  Compressed: "compressed NFT (Bubblegum)",
};

/**
 * The document of a demo asset: a demo collection itself, or an item of one (its number read from `#n` in its
 * name); null for an asset outside the demo world.
 */
export function demoMetadataDocument(a: AssetFacts): MetadataDocument | null {
  const own = demoGroups().get(a.id);
  const group = own ?? (a.collection ? demoGroups().get(a.collection) : undefined);
  if (!group) return null;
  const number = own ? null : (/#(\d+)$/.exec(a.name)?.[1] ?? null);
  if (!own && number === null) return null;
  const image = own ? group.image : getDemoImage(group.color, number!);
  const attributes = [
    { trait_type: "Collection", value: group.name },
    { trait_type: "Standard", value: STANDARD_LABEL[a.standard] },
  ];
  if (number !== null) attributes.push({ trait_type: "Number", value: number });
  return {
    name: a.name,
    symbol: a.symbol || group.symbol,
    description: own
      ? `${group.name}: a demo collection of the Cistern localnet.`
      : `${a.name}, a demo ${STANDARD_LABEL[a.standard]} of ${group.name} on the Cistern localnet.`,
    image,
    attributes,
    properties: { files: [{ uri: image, type: "image/svg+xml" }], category: "image" },
  };
}
