/**
 * The demo world seeded on localnet: pure data and types, safe to import in a browser.
 *
 * Addresses of demo mints are literals derived with `getDemoAddress(seed)`
 * (base58(sha256("cistern-demo:" + seed))), so they are stable across resets; a test checks them.
 * Prices are USD per whole token (or per NFT at the collection floor) as decimal strings.
 */

/** SPL Token program that owns every demo mint. */
export const TOKEN_PROGRAM_ADDRESS = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
/** Metaplex Token Metadata program: owner of the metadata accounts written for demo NFTs. */
export const TOKEN_METADATA_PROGRAM_ADDRESS = "metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s";
/** USDC at its mainnet mint address (6 decimals). */
export const USDC_MINT_ADDRESS = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
/** Wrapped SOL, the native mint (9 decimals). */
export const WRAPPED_SOL_MINT_ADDRESS = "So11111111111111111111111111111111111111112";

/** A fungible token on the demo chain. */
export interface DemoToken {
  symbol: string;
  name: string;
  mint: string;
  decimals: number;
  /** USD per whole token, decimal string. */
  priceUsd: string;
  /** Seed string of `getDemoAddress`, or null for a mint at its mainnet address. */
  seed: string | null;
  /** How the token is used in the product. */
  role: "currency" | "collateral";
  /** Base units the faucet gives a wallet, decimal string. */
  faucetAmountBaseUnits: string;
  image: string;
}

/** One NFT of a demo collection (classic SPL mint, 0 decimals, supply 1). */
export interface DemoNft {
  mint: string;
  seed: string;
  name: string;
  /** 1-based index in the collection. */
  index: number;
  /** Goes on chain as the Metaplex `uri` (an inline SVG image, <= 200 bytes). */
  image: string;
}

/** A demo NFT collection; `collectionId` is the collection mint address (the verified collection key). */
export interface DemoCollection {
  collectionId: string;
  seed: string;
  symbol: string;
  name: string;
  image: string;
  decimals: 0;
  /** Seeded floor price in lamports, decimal string. */
  floorPriceLamports: string;
  /** Seeded floor price in USD, decimal string (= floor SOL x SOL price). */
  priceUsd: string;
  nfts: DemoNft[];
}

/**
 * A collection of programmable NFTs (Token Metadata `ProgrammableNonFungible`), governed by the demo rule set
 * (Token Auth Rules, name {@link DEMO_RULE_SET_NAME}, owner the faucet). Mints are keypairs from
 * `getDemoKeypair(seed)`: Token Metadata creates them.
 */
export interface DemoProgrammableCollection {
  collectionId: string;
  seed: string;
  symbol: string;
  name: string;
  /** The floor the demo market maker prices its listings and bids from (lamports; USD at the demo SOL price). */
  floorPriceLamports: string;
  priceUsd: string;
  image: string;
  nfts: DemoNft[];
}

/** One Metaplex Core asset (its address is the asset account, a keypair from `getDemoKeypair(seed)`). */
export interface DemoCoreAsset {
  address: string;
  seed: string;
  name: string;
  index: number;
  image: string;
}

/** A Metaplex Core collection (its address is the collection account) and its listed assets. */
export interface DemoCoreCollection {
  collectionId: string;
  seed: string;
  symbol: string;
  name: string;
  /** The floor the demo market maker prices its listings and bids from (lamports; USD at the demo SOL price). */
  floorPriceLamports: string;
  priceUsd: string;
  image: string;
  assets: DemoCoreAsset[];
}

/**
 * A compressed collection: a Token Metadata collection NFT (its mint at `getDemoAddress(seed)`) and one Bubblegum V1
 * tree (a keypair from `getDemoKeypair(treeSeed)`, which signs its creation) whose leaves are minted into the
 * collection with MintToCollectionV1. Leaf n (from 0) is named `<name> #n+1`; the first `listedLeaves` belong to the
 * faucet, the faucet gives a wallet the next ones.
 */
export interface DemoCompressedCollection {
  collectionId: string;
  seed: string;
  tree: string;
  treeSeed: string;
  symbol: string;
  name: string;
  /** The name of the leaves, before ` #n`. */
  itemName: string;
  image: string;
  /** Colour of the leaves' images (hex, no #). */
  itemColor: string;
  /** 2^maxDepth leaves; maxBufferSize concurrent changes per slot; the top canopyDepth levels kept on chain. */
  maxDepth: number;
  maxBufferSize: number;
  canopyDepth: number;
  listedLeaves: number;
  /** The floor the demo market maker prices its listings and bids from (lamports; USD at the demo SOL price). */
  floorPriceLamports: string;
  priceUsd: string;
}

/** The whole demo world as returned by `localnet_demoWorld`. */
export interface DemoWorld {
  tokens: DemoToken[];
  /** Classic NFT collections (Token Metadata `NonFungible`): the ones pools lend against today. */
  collections: DemoCollection[];
  /** pNFT collections, for the loans against programmable NFTs to come. */
  programmableCollections: DemoProgrammableCollection[];
  /** Core collections, for the loans against Core assets to come. */
  coreCollections: DemoCoreCollection[];
  /** Compressed collections (Bubblegum V1 trees), for the loans against compressed NFTs to come. */
  compressedCollections: DemoCompressedCollection[];
}

/** Compact inline SVG (fits Metaplex's 200-byte uri): coloured square with a label. */
export function getDemoImage(colorHex: string, label: string): string {
  return `data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 4 4'><path d='M0 0h4v4H0z' fill='%23${colorHex}'/><text x='.3' y='2.4' font-size='1' fill='%23fff'>${label}</text></svg>`;
}

function nfts(symbol: string, name: string, color: string, mints: string[]): DemoNft[] {
  return mints.map((mint, i) => ({
    mint,
    seed: `nft:${symbol}:${i + 1}`,
    name: `${name} #${i + 1}`,
    index: i + 1,
    image: getDemoImage(color, String(i + 1)),
  }));
}

/** Demo fungible tokens: the two lending currencies first, then collateral tokens. */
export const DEMO_TOKENS: DemoToken[] = [
  {
    symbol: "USDC",
    name: "USD Coin",
    mint: USDC_MINT_ADDRESS,
    decimals: 6,
    priceUsd: "1",
    seed: null,
    role: "currency",
    faucetAmountBaseUnits: "10000000000",
    image: getDemoImage("2775ca", "USDC"),
  },
  {
    symbol: "SOL",
    name: "Wrapped SOL",
    mint: WRAPPED_SOL_MINT_ADDRESS,
    decimals: 9,
    priceUsd: "150",
    seed: null,
    role: "currency",
    faucetAmountBaseUnits: "0",
    image: getDemoImage("9945ff", "SOL"),
  },
  {
    symbol: "BONK",
    name: "Bonk (demo)",
    mint: "CXB3EDm93DiYXhd5o9V8vvCsgYmPmxxnP3hyMo6MwzzQ",
    decimals: 5,
    priceUsd: "0.00002",
    seed: "token:BONK",
    role: "collateral",
    faucetAmountBaseUnits: "100000000000000",
    image: getDemoImage("f2a900", "BONK"),
  },
  {
    symbol: "JUP",
    name: "Jupiter (demo)",
    mint: "B6xGgZf33g5YD5QzwBbXNGjboPgKQq4JfpzUiMjPamu6",
    decimals: 6,
    priceUsd: "0.8",
    seed: "token:JUP",
    role: "collateral",
    faucetAmountBaseUnits: "5000000000",
    image: getDemoImage("1f9d55", "JUP"),
  },
  {
    symbol: "JTO",
    name: "Jito (demo)",
    mint: "6de1sJphLeD8kEFrPGMm4iPzzSmj9RwcREv4FFTa4pFF",
    decimals: 9,
    priceUsd: "2.5",
    seed: "token:JTO",
    role: "collateral",
    faucetAmountBaseUnits: "1000000000000",
    image: getDemoImage("3d3d3d", "JTO"),
  },
];

/** Demo NFT collections (8 NFTs each listed; the faucet derives more with `nft:<SYMBOL>:<n>`). */
export const DEMO_COLLECTIONS: DemoCollection[] = [
  {
    collectionId: "DMRNzqaFoaoaVmVnzTv4YsCHM8rVUrymgtyv2MYeebsL",
    seed: "collection:OTTR",
    symbol: "OTTR",
    name: "Cistern Otters",
    image: getDemoImage("b5651d", "OTTR"),
    decimals: 0,
    floorPriceLamports: "12500000000",
    priceUsd: "1875",
    nfts: nfts("OTTR", "Cistern Otter", "b5651d", [
      "BZqbXsTDxCndSwCqGfd1iLA63yjaUpYTJDxC7G9YWWJc",
      "AgSvEVNBPkqrYo5fVZM3hP2L4WVHUV9RGYUsfNr2NumU",
      "3A37fi8XL89YL668qVdVEA1QLcmokYRNod55k4LchbBN",
      "7q2U5iL8XZ89GAXLeUSxp8WNMqu4XZbsWurKqfWdyKed",
      "2UjytCm5Rc2XWJoBdFf7iU7QSBcirCqKpMxuRxakLypq",
      "7TnmC9Jf2tiXr87e5TphDdBBe9gg5ZH1KScAvEKgLjMg",
      "31niDNnibnpiyrifXqkingC2Mv3N9fMDSFSjKr3zaBqR",
      "9VuQW6vDBQGAyqDF4k1sYkD3jRAmZ6nLeg2kKgnRBgMD",
    ]),
  },
  {
    collectionId: "bc4gAoKkZTVcdJb3ZyyEtEwtLMxBoWWY9mGe36wqqs4",
    seed: "collection:RFROG",
    symbol: "RFROG",
    name: "Rain Frogs",
    image: getDemoImage("2e8b57", "FROG"),
    decimals: 0,
    floorPriceLamports: "4000000000",
    priceUsd: "600",
    nfts: nfts("RFROG", "Rain Frog", "2e8b57", [
      "DbaSfGPggVLvz12GFjwdML5ygex59RN2srmBcGhVCmwb",
      "CpBvx2hhZFWpyyfzCAU5hcF18mQ3fJdDLNSJRE5PZVmZ",
      "9LiSbDDW3stpeGQhXB4beaWK79AbfXo2RBeJPLk8VHf9",
      "DgS7mD31yUepHFMRa17XBXsjAjmL99ks6rq8BKhkW828",
      "ATDQs1LPdNaMaQJ42MmeohmbYJMtf3y5yVnmyDuCWMHm",
      "w4dBDumVvNexPCxkBg5u4kk88APVw2vvXmy8FEddovr",
      "2rdrkFg9UcHYrHKptimeYgFpkEqCViMTWuGwXtb76s8B",
      "ECTD4rTt8YE2aY9XdEn4qMDcDdC3Krhm9jnH5gNumHAM",
    ]),
  },
  {
    collectionId: "Gz1cuWmuaQymLXD5XVqKey3DwDFsJqVT9yVRPwmKxU7Q",
    seed: "collection:AQUA",
    symbol: "AQUA",
    name: "Aqueduct Apes",
    image: getDemoImage("1e6fb0", "AQUA"),
    decimals: 0,
    floorPriceLamports: "30000000000",
    priceUsd: "4500",
    nfts: nfts("AQUA", "Aqueduct Ape", "1e6fb0", [
      "GJAVddcA3qjKa5Cay7WqvN928JHDqMZdCm4CxjLig9CY",
      "BaPD9Xk2TnKFsWFpBHrxfGLPHYQZpUuvuGr7v4Svo9nw",
      "9Jw4JqAJNp6iYgKSKTaHFSv29hczkFq78GoH4EFjCAvd",
      "2eaJ23hkaPdFy4jcwXPWfxF1bUYHpa5kZiLexFAib6fy",
      "DoLYyYmi9T1fB6tiYXskKzprpfHtTTX2kEmEWYpCmuwZ",
      "FzZB7VYafXku1KZaCqp7TMQ5oXLrSo6jWxdxAX8gdmyd",
      "3mmjxn8ZHC63jJJb6iuMNsGdf8uio25LVNXdap4Q7KVU",
      "7DtDKiwB9LvPoVvfYdUa9RNgRWHh36iq9h68QL5S51uC",
    ]),
  },
  {
    collectionId: "49SMCpP6gzS19H4nJzydbBnQc6V9hYk1nbqN89vNRFjP",
    seed: "collection:DRIP",
    symbol: "DRIP",
    name: "Drip Dragons",
    image: getDemoImage("8e44ad", "DRIP"),
    decimals: 0,
    floorPriceLamports: "1200000000",
    priceUsd: "180",
    nfts: nfts("DRIP", "Drip Dragon", "8e44ad", [
      "9QzWhouVDgpBB7fqFAh2RuKGdD8iXciWT5jiNY1dz6wq",
      "Aj82s5Q2mVwjcgMQQxwLheCKS1czpMYpeAiJFK1HeQBN",
      "CzsrtqWjcYoEkk4TwSkXYFGc33fx6NCS2SVdJj7bYQL9",
      "EpYA7rFNnV6gY6Wigbw8HbsARkfR9ug6qREo8Ki9a6Rb",
      "FdKftHTh96msLQWPRMLNR5vRBL7iv119HTYhGSqgZafG",
      "CKgAeicCX3XTU1AoHnTbBrTVvfuJ4nktNG2QKUJC5PUm",
      "53sTuR7nu6nRNh9S8r1JzK9kqGuNZpwmGGNuyoyxZCk2",
      "2zUZYuFKsgm4xCdbhV4mN9xH73F5bZydGCYE6wg89ENu",
    ]),
  },
];

/** Name of the Token Auth Rules rule set (owner: the faucet) that governs the demo pNFTs. */
export const DEMO_RULE_SET_NAME = "cistern-demo";

/** Demo pNFT collections (4 listed pNFTs each, held by the faucet; the faucet gives one more to a wallet). */
export const DEMO_PROGRAMMABLE_COLLECTIONS: DemoProgrammableCollection[] = [
  {
    collectionId: "4m5kJ529vdnR9q5uNFPW8xULPr3RoaXuGxjfcYNkXZBJ",
    seed: "pnft-collection:PETL",
    symbol: "PETL",
    name: "Storm Petrels",
    floorPriceLamports: "5000000000",
    priceUsd: "750",
    image: getDemoImage("34495e", "PETL"),
    nfts: [
      "EtMbsVr3trfnJYv5p641nqpNs8WDgC4m7e48w1dda2TS",
      "2M7dE41zTEuBwsZmGxeQpbsttWkEzntYE3oYr2wcZwij",
      "GCn5EQGTfvzAMHfCz9SpfEH1g4QUe5daWbwHLfMCwp6t",
      "7Bp1n8wh1HMYoVMwmfExDhvwmmDnyZ6Y1jHd2uLL7333",
    ].map((mint, i) => ({
      mint,
      seed: `pnft:PETL:${i + 1}`,
      name: `Storm Petrel #${i + 1}`,
      index: i + 1,
      image: getDemoImage("34495e", String(i + 1)),
    })),
  },
];

/** Demo Core collections (4 listed assets each, owned by the faucet; the faucet gives one more to a wallet). */
export const DEMO_CORE_COLLECTIONS: DemoCoreCollection[] = [
  {
    collectionId: "EgvyczPthtXxoDXHXYXhBa3cjsyonfD549LYgW4g8vDD",
    seed: "core-collection:KOI",
    symbol: "KOI",
    name: "Cistern Koi",
    floorPriceLamports: "8000000000",
    priceUsd: "1200",
    image: getDemoImage("e67e22", "KOI"),
    assets: [
      "AoY8nL36ij2fqNqiheJ8Ug9he8RV2aL7drJF6R9U1FLm",
      "BxX2usUvHr6no4texRsD2J5zipmFRwVo6apBCdyHj6Jj",
      "TQ2MzVqdnZ2sUNJzCibFx7WNKFyFAVknZKV5vBmoH37",
      "33rf45iyLLFDiRNEZiw2h3iUQ1LZEQh9G2HCYKPCDeDA",
    ].map((address, i) => ({
      address,
      seed: `core:KOI:${i + 1}`,
      name: `Cistern Koi #${i + 1}`,
      index: i + 1,
      image: getDemoImage("e67e22", String(i + 1)),
    })),
  },
];

/**
 * Demo compressed collections. Tree shape: depth 14 (16,384 leaves), buffer 64, canopy 13, so a proof needs only
 * 14 - 13 = 1 node (32 bytes of account keys) in a transaction: a take-loan carries the leaf's metadata (its uri an
 * inline SVG) and, from a SOL pool, the wrapped SOL account's creation and closing; with 3 proof nodes (canopy 11) it
 * was 1,272 bytes with the protocol's lookup table, with 1 it is 1,208 (issue #44).
 */
export const DEMO_COMPRESSED_COLLECTIONS: DemoCompressedCollection[] = [
  {
    collectionId: "CMgQGXkVZMPMHLHWWQm84QZ1ZVDjBetLWitqSk7n3eaa",
    seed: "cnft-collection:SHELL",
    tree: "DLjgZxDaReGm6x3LnUsvjrJx1wkW3cGMWTwVYTwYdS6r",
    treeSeed: "cnft-tree:SHELL",
    symbol: "SHELL",
    name: "Cistern Shells",
    itemName: "Cistern Shell",
    image: getDemoImage("16a085", "SHL"),
    itemColor: "16a085",
    maxDepth: 14,
    maxBufferSize: 64,
    canopyDepth: 13,
    listedLeaves: 4,
    floorPriceLamports: "2000000000",
    priceUsd: "300",
  },
];

/** Lamports the faucet gives a wallet (100 SOL). */
export const FAUCET_LAMPORTS = 100_000_000_000n;
/** NFTs per collection the faucet gives a wallet. */
export const FAUCET_NFTS_PER_COLLECTION = 1;

/** The demo world description (tokens and collections). */
export const DEMO_WORLD: DemoWorld = {
  tokens: DEMO_TOKENS,
  collections: DEMO_COLLECTIONS,
  programmableCollections: DEMO_PROGRAMMABLE_COLLECTIONS,
  coreCollections: DEMO_CORE_COLLECTIONS,
  compressedCollections: DEMO_COMPRESSED_COLLECTIONS,
};
