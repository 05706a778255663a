import { decodeAddress, decodeBase58, encodeBase58 } from "./base58.ts";
import type { AccountWrite, Chain } from "./chain.ts";
import { type CompressedNftGiven, mintLeaves } from "./compressed-seed.ts";
import { getDemoMetadataUri } from "./das/offchain-metadata.ts";
import { getDemoAddress } from "./demo-address.ts";
import {
  DEMO_COLLECTIONS,
  DEMO_COMPRESSED_COLLECTIONS,
  DEMO_CORE_COLLECTIONS,
  DEMO_PROGRAMMABLE_COLLECTIONS,
  DEMO_TOKENS,
  type DemoCollection,
  FAUCET_LAMPORTS,
  FAUCET_NFTS_PER_COLLECTION,
} from "./demo-world.ts";
import { invalidParams } from "./errors.ts";
import { generateLocalKeypair, type LocalKeypair } from "./keypair.ts";
import {
  type ClassicNftSpec,
  getClassicNftMintInstructions,
  getCoreAssetInstructions,
  getCoreCollectionInstructions,
  getDemoRuleSetAddress,
  getDemoRuleSetTransactions,
  getProgrammableNftMintInstructions,
  type ProgrammableNftSpec,
  readCollectionSize,
  readCoreCollectionMinted,
} from "./nft-mint.ts";
import type { MintStep, SeedAdmin } from "./seed-admin.ts";
import {
  decodeMint,
  decodeTokenAccount,
  encodeMint,
  encodeTokenAccount,
  getAssociatedTokenAddress,
  isMintData,
  NATIVE_MINT,
  TOKEN_2022_PROGRAM,
  TOKEN_ACCOUNT_SIZE,
  TOKEN_PROGRAM,
} from "./token-layout.ts";
import { getMetadataAddress } from "./token-metadata.ts";
import { type BuildInstruction, buildSignedTransaction } from "./tx-builder.ts";
import { parseWireTransaction } from "./wire.ts";

const U64_MAX = (1n << 64n) - 1n;
/** Largest transaction a validator accepts (bytes). */
const PACKET_DATA_SIZE = 1232;
/** ComputeBudget SetComputeUnitLimit(400,000): a pNFT's Create + Mint + Verify needs ~210,000 CU. */
const COMPUTE_UNIT_LIMIT: BuildInstruction = {
  programId: decodeBase58("ComputeBudget111111111111111111111111111111"),
  keys: [],
  data: Uint8Array.of(2, 0x80, 0x1a, 0x06, 0x00),
};

const SYSTEM_PROGRAM = "11111111111111111111111111111111";

export { getAssociatedTokenAddress };

/** What `localnet_faucet` handed out. */
export interface FaucetResult {
  lamports: string;
  tokens: { mint: string; symbol: string; amount: string; tokenAccount: string }[];
  /** Classic NFTs (Token Metadata NonFungible), one per classic collection. */
  nfts: { mint: string; collectionId: string; name: string; tokenAccount: string }[];
  /** Programmable NFTs, one per pNFT collection (governed by the demo rule set). */
  programmableNfts: {
    mint: string;
    collectionId: string;
    name: string;
    tokenAccount: string;
    ruleSet: string;
  }[];
  /** Metaplex Core assets, one per Core collection. */
  coreAssets: { asset: string; collectionId: string; name: string }[];
  /** Compressed NFTs (Bubblegum V1 leaves), one per compressed collection. */
  compressedNfts: CompressedNftGiven[];
}

/**
 * Development-only state changes (clock, accounts, funding, faucet). Every change is applied with
 * setAccount and logged in the ledger, so it survives restarts like any transaction.
 */
export class WorldAdmin implements SeedAdmin {
  private nextNftIndex = new Map<string, number>();
  /** Serialises admin mutations so read-modify-write sequences never interleave. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly chain: Chain,
    readonly faucetKeypair: LocalKeypair,
  ) {}

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Reads an account as an AccountWrite (null when absent). */
  readAccount(addr: string): AccountWrite | null {
    const a = this.chain.svm.getAccount(decodeAddress(addr));
    if (!a) return null;
    return {
      address: addr,
      lamports: a.lamports().toString(),
      data: Buffer.from(a.data()).toString("base64"),
      owner: encodeBase58(a.owner()),
      executable: a.executable(),
    };
  }

  /** Overwrites one account. */
  setAccount(
    addr: string,
    a: { lamports: bigint; data: Uint8Array; owner: string; executable: boolean },
  ): Promise<void> {
    decodeAddress(addr);
    decodeAddress(a.owner);
    if (a.lamports < 0n || a.lamports > U64_MAX) throw invalidParams("Invalid params: lamports out of range");
    return this.serial(() =>
      this.chain.setAccounts([
        {
          address: addr,
          lamports: a.lamports.toString(),
          data: Buffer.from(a.data).toString("base64"),
          owner: a.owner,
          executable: a.executable,
        },
      ]),
    );
  }

  /** Moves the clock forward; returns the new unix timestamp. */
  advanceClock(seconds: number): Promise<number> {
    if (!Number.isSafeInteger(seconds) || seconds < 0)
      throw invalidParams("Invalid params: seconds must be a non-negative integer");
    return this.serial(() => this.chain.advanceClock(seconds));
  }

  private lamportsWrite(addr: string, lamports: bigint, pending: Map<string, AccountWrite>): void {
    const cur = pending.get(addr) ?? this.readAccount(addr);
    const total = BigInt(cur?.lamports ?? "0") + lamports;
    if (total > U64_MAX) throw invalidParams("Invalid params: lamports overflow");
    pending.set(addr, {
      address: addr,
      lamports: total.toString(),
      data: cur?.data ?? "",
      owner: cur?.owner ?? SYSTEM_PROGRAM,
      executable: cur?.executable ?? false,
    });
  }

  /** Adds `amount` base units of `mint` to the owner's associated token account (creating it). */
  private tokenWrites(
    owner: string,
    mint: string,
    amount: bigint,
    pending: Map<string, AccountWrite>,
  ): string {
    const mintAcct = pending.get(mint) ?? this.readAccount(mint);
    if (!mintAcct || (mintAcct.owner !== TOKEN_PROGRAM && mintAcct.owner !== TOKEN_2022_PROGRAM))
      throw invalidParams(`Invalid params: ${mint} is not a token mint`);
    const mintData = Buffer.from(mintAcct.data, "base64");
    if (!isMintData(mintData, mintAcct.owner))
      throw invalidParams(`Invalid params: ${mint} is not a token mint`);
    if (mintAcct.owner === TOKEN_2022_PROGRAM && mintData.length !== 82)
      throw invalidParams("Invalid params: funding Token-2022 mints with extensions is not supported");
    const ata = getAssociatedTokenAddress(owner, mint, mintAcct.owner);
    const rent = this.chain.svm.minimumBalanceForRentExemption(BigInt(TOKEN_ACCOUNT_SIZE));
    const existing = pending.get(ata) ?? this.readAccount(ata);
    const native = mint === NATIVE_MINT;
    let balance = 0n;
    let lamports = rent;
    if (existing) {
      const t = decodeTokenAccount(Buffer.from(existing.data, "base64"));
      if (t.owner !== owner || t.mint !== mint)
        throw invalidParams("Invalid params: unexpected associated token account");
      balance = t.amount;
      lamports = BigInt(existing.lamports);
    }
    if (balance + amount > U64_MAX) throw invalidParams("Invalid params: token amount overflow");
    if (native) lamports += amount;
    pending.set(ata, {
      address: ata,
      lamports: lamports.toString(),
      data: Buffer.from(
        encodeTokenAccount({
          mint: decodeAddress(mint),
          owner: decodeAddress(owner),
          amount: balance + amount,
          isNativeRentReserve: native ? rent : null,
        }),
      ).toString("base64"),
      owner: mintAcct.owner,
      executable: false,
    });
    if (!native) {
      const m = decodeMint(mintData);
      if (m.supply + amount > U64_MAX) throw invalidParams("Invalid params: mint supply overflow");
      const next = Buffer.from(mintData);
      next.writeBigUInt64LE(m.supply + amount, 36);
      pending.set(mint, { ...mintAcct, data: next.toString("base64") });
    }
    return ata;
  }

  /** Gives a wallet lamports and tokens (amounts in base units). */
  fundWallet(
    owner: string,
    req: { lamports?: bigint; tokens?: { mint: string; amount: bigint }[] },
  ): Promise<void> {
    decodeAddress(owner);
    return this.serial(() => {
      const pending = new Map<string, AccountWrite>();
      if (req.lamports && req.lamports > 0n) this.lamportsWrite(owner, req.lamports, pending);
      for (const t of req.tokens ?? []) {
        decodeAddress(t.mint);
        if (t.amount < 0n) throw invalidParams("Invalid params: amount must be non-negative");
        this.tokenWrites(owner, t.mint, t.amount, pending);
      }
      return this.chain.setAccounts([...pending.values()]);
    });
  }

  /** The classic NFT `index` of a collection (listed in the demo world, or a faucet one past the list). */
  collectionItem(c: DemoCollection, index: number, owner: string): ClassicNftSpec {
    const listed = c.nfts[index - 1];
    const name = listed?.name ?? `${c.nfts[0]?.name.replace(/ #\d+$/, "") ?? c.name} #${index}`;
    const mint = listed?.mint ?? getDemoAddress(`nft:${c.symbol}:${index}`);
    return {
      mint,
      name,
      symbol: c.symbol,
      uri: getDemoMetadataUri(mint),
      owner,
      collection: c.collectionId,
      isCollection: false,
    };
  }

  /**
   * A bare NFT mint (supply 0, decimals 0, the faucet as mint and freeze authority) at an address that has no
   * key (`getDemoAddress`), so it cannot sign a createAccount: the only account of an NFT written directly, as a
   * validator's genesis accounts are. Everything after it is real transactions (`mintClassicNfts`).
   */
  nftMintWrite(mint: string): AccountWrite {
    return this.mintWrite(mint, 0, 0n, this.faucetKeypair.publicKey);
  }

  /** A fresh classic SPL mint with the faucet as mint authority. */
  mintWrite(
    mint: string,
    decimals: number,
    supply: bigint,
    freezeAuthority: Uint8Array | null = null,
  ): AccountWrite {
    return {
      address: mint,
      lamports: this.chain.svm.minimumBalanceForRentExemption(82n).toString(),
      data: Buffer.from(
        encodeMint({ mintAuthority: this.faucetKeypair.publicKey, supply, decimals, freezeAuthority }),
      ).toString("base64"),
      owner: TOKEN_PROGRAM,
      executable: false,
    };
  }

  /**
   * Mints classic NFTs through the real Token Metadata program, in order (a collection before its items), one
   * transaction each signed by the faucet: token to the owner, CreateMetadataAccountV3, CreateMasterEditionV3
   * and, for an item, Verify of its collection. Steps already on chain are skipped. Resolves once all are durable,
   * with the number of transactions sent.
   */
  async mintClassicNfts(nfts: ClassicNftSpec[]): Promise<number> {
    return this.sendMints(
      nfts.map((nft) => ({
        what: `mint ${nft.name}`,
        build: () => getClassicNftMintInstructions(this.chain.svm, this.faucetKeypair.address, nft),
      })),
    );
  }

  /**
   * Creates the demo rule set (Token Auth Rules CreateOrUpdate, owner the faucet) when missing, then mints the
   * pNFTs in order (a collection before its items): Create v1 (ProgrammableNonFungible, governed by the rule set),
   * Mint v1 and, for an item, Verify of its collection. Resolves with the number of transactions sent.
   */
  async mintProgrammableNfts(nfts: ProgrammableNftSpec[]): Promise<number> {
    const faucet = this.faucetKeypair.address;
    const ruleSet = getDemoRuleSetAddress(faucet);
    const steps: MintStep[] = [];
    if (nfts.length > 0 && !this.chain.svm.getAccount(decodeAddress(ruleSet)))
      for (const ixs of getDemoRuleSetTransactions(faucet, []))
        steps.push({ what: "create the demo rule set", build: () => ixs });
    for (const nft of nfts)
      steps.push({
        what: `mint ${nft.name}`,
        build: () => getProgrammableNftMintInstructions(this.chain.svm, faucet, nft),
        signers: [nft.mint],
      });
    return this.sendMints(steps);
  }

  /**
   * Updates the demo rule set (owner: the faucet) so that `programs` (e.g. the lending program and the NFT market)
   * are the ones allowed to hold, receive or be delegated the demo pNFTs; every other program is refused.
   */
  async setDemoRuleSetPrograms(programs: string[]): Promise<void> {
    for (const p of programs) decodeAddress(p);
    await this.serial(async () => {
      // an update back to an earlier content under the blockhash it was sent with would be the same transaction,
      // which the chain skips as a duplicate: each update waits for a blockhash the last one did not use
      while (this.chain.latestBlockhash().blockhash === this.ruleSetUpdatedUnder)
        await new Promise((resolve) => setTimeout(resolve, this.chain.slotMs / 4));
      this.ruleSetUpdatedUnder = this.chain.latestBlockhash().blockhash;
      await this.sendMints(
        getDemoRuleSetTransactions(this.faucetKeypair.address, programs).map((ixs) => ({
          what: "update the demo rule set",
          build: () => ixs,
        })),
      );
    });
  }
  /** The blockhash the last rule set update was signed under. */
  private ruleSetUpdatedUnder: string | undefined;

  /** Creates Core collections and assets (each account a keypair that signs), in order. */
  async mintCore(
    items: (
      | { collection: LocalKeypair; name: string; uri: string }
      | { asset: LocalKeypair; collection: string; owner: string; name: string; uri: string }
    )[],
  ): Promise<number> {
    const faucet = this.faucetKeypair.address;
    return this.sendMints(
      items.map((item) =>
        "asset" in item
          ? {
              what: `create ${item.name}`,
              build: () => getCoreAssetInstructions(this.chain.svm, faucet, item),
              signers: [item.asset],
            }
          : {
              what: `create the collection ${item.name}`,
              build: () => getCoreCollectionInstructions(this.chain.svm, faucet, item),
              signers: [item.collection],
            },
      ),
    );
  }

  /** Sends transactions as the faucet, in order, each built when its turn comes (the compressed seed's). */
  sendInOrder(steps: MintStep[]): Promise<number> {
    return this.sendMints(steps);
  }

  /**
   * Sends each step as one transaction signed by the faucet (and the step's own signers), in order: a step's
   * instructions are built from the chain as the steps before it left it (execution is synchronous, durability is
   * not waited for in between). Resolves once all are durable, with the number sent; a failure throws with logs.
   */
  private async sendMints(steps: MintStep[]): Promise<number> {
    const sent: { signature: Promise<string> | string; what: string }[] = [];
    for (const step of steps) {
      const ixs = step.build();
      if (ixs.length > 0)
        sent.push({ signature: this.sendAsFaucet(ixs, step.signers ?? [], step.what), what: step.what });
    }
    for (const { signature, what } of sent) {
      const record = this.chain.history.get(await signature);
      if (!record || record.err !== null)
        throw new Error(
          `localnet: ${what} failed: ${JSON.stringify(record?.err ?? "not executed")}\n${(record?.logs ?? []).join("\n")}`,
        );
    }
    return sent.length;
  }

  /**
   * Signs `ixs` with the faucet and executes them once (no preflight simulation: the instructions are ours and
   * their outcome is checked in the history once durable). Refuses what a validator would: over 1,232 bytes.
   */
  private sendAsFaucet(
    ixs: BuildInstruction[],
    signers: LocalKeypair[],
    what: string,
  ): Promise<string> | string {
    const blockhash = decodeBase58(this.chain.latestBlockhash().blockhash);
    const bytes = buildSignedTransaction(
      this.faucetKeypair,
      [COMPUTE_UNIT_LIMIT, ...ixs],
      blockhash,
      signers,
    );
    if (bytes.length > PACKET_DATA_SIZE)
      throw new Error(
        `localnet: ${what}: the transaction is ${bytes.length} bytes, over ${PACKET_DATA_SIZE}`,
      );
    return this.chain.submit(parseWireTransaction(bytes), true);
  }

  private nextFreeIndex(c: DemoCollection): number {
    let i = this.nextNftIndex.get(c.collectionId) ?? c.nfts.length + 1;
    while (this.chain.svm.getAccount(decodeAddress(getDemoAddress(`nft:${c.symbol}:${i}`)))) i++;
    this.nextNftIndex.set(c.collectionId, i + 1);
    return i;
  }

  /**
   * Gives a wallet SOL, USDC, every demo token (written directly) and fresh NFTs of each standard, through the
   * real programs: a classic NFT per classic collection and a pNFT per pNFT collection (Token Metadata, verified
   * into their collection), a Core asset per Core collection (Core), and a compressed NFT per compressed
   * collection (Bubblegum MintToCollectionV1).
   */
  faucet(owner: string): Promise<FaucetResult> {
    decodeAddress(owner);
    return this.serial(async () => {
      const pending = new Map<string, AccountWrite>();
      this.lamportsWrite(owner, FAUCET_LAMPORTS, pending);
      const result: FaucetResult = {
        lamports: FAUCET_LAMPORTS.toString(),
        tokens: [],
        nfts: [],
        programmableNfts: [],
        coreAssets: [],
        compressedNfts: [],
      };
      for (const t of DEMO_TOKENS) {
        const amount = BigInt(t.faucetAmountBaseUnits);
        if (amount === 0n) continue;
        const tokenAccount = this.tokenWrites(owner, t.mint, amount, pending);
        result.tokens.push({ mint: t.mint, symbol: t.symbol, amount: amount.toString(), tokenAccount });
      }
      const nfts: ClassicNftSpec[] = [];
      for (const c of DEMO_COLLECTIONS) {
        for (let n = 0; n < FAUCET_NFTS_PER_COLLECTION; n++) {
          const nft = this.collectionItem(c, this.nextFreeIndex(c), owner);
          pending.set(nft.mint, this.nftMintWrite(nft.mint));
          nfts.push(nft);
          result.nfts.push({
            mint: nft.mint,
            name: nft.name,
            collectionId: c.collectionId,
            tokenAccount: getAssociatedTokenAddress(owner, nft.mint),
          });
        }
      }
      await this.chain.setAccounts([...pending.values()]);
      await this.mintClassicNfts(nfts);
      const ruleSet = getDemoRuleSetAddress(this.faucetKeypair.address);
      const pnfts: ProgrammableNftSpec[] = [];
      for (const c of DEMO_PROGRAMMABLE_COLLECTIONS) {
        const collectionMetadata = this.chain.svm.getAccount(
          decodeAddress(getMetadataAddress(c.collectionId)),
        );
        const size = collectionMetadata ? (readCollectionSize(collectionMetadata.data()) ?? 0n) : 0n;
        const mint = generateLocalKeypair();
        const nft: ProgrammableNftSpec = {
          mint,
          name: `${c.nfts[0]?.name.replace(/ #\d+$/, "") ?? c.name} #${size + 1n}`,
          symbol: c.symbol,
          uri: getDemoMetadataUri(mint.address),
          owner,
          collection: c.collectionId,
          ruleSet,
        };
        pnfts.push(nft);
        result.programmableNfts.push({
          mint: nft.mint.address,
          collectionId: c.collectionId,
          name: nft.name,
          tokenAccount: getAssociatedTokenAddress(owner, nft.mint.address),
          ruleSet,
        });
      }
      await this.mintProgrammableNfts(pnfts);
      for (const c of DEMO_CORE_COLLECTIONS) {
        const index = (readCoreCollectionMinted(this.chain.svm, c.collectionId) ?? 0) + 1;
        const asset = generateLocalKeypair();
        const name = `${c.assets[0]?.name.replace(/ #\d+$/, "") ?? c.name} #${index}`;
        const uri = getDemoMetadataUri(asset.address);
        await this.mintCore([{ asset, collection: c.collectionId, owner, name, uri }]);
        result.coreAssets.push({ asset: asset.address, collectionId: c.collectionId, name });
      }
      for (const c of DEMO_COMPRESSED_COLLECTIONS)
        result.compressedNfts.push(...(await mintLeaves(this, c, [owner])));
      return result;
    });
  }

  /**
   * Runs `fn` (synchronous, so no transaction interleaves between its reads and the writes) and
   * commits the writes it collects (used by the seed).
   */
  batch(fn: (pending: Map<string, AccountWrite>) => void): Promise<void> {
    return this.serial(() => {
      const pending = new Map<string, AccountWrite>();
      fn(pending);
      return this.chain.setAccounts([...pending.values()]);
    });
  }

  /** Adds lamports inside a batch. */
  addLamports(addr: string, lamports: bigint, pending: Map<string, AccountWrite>): void {
    this.lamportsWrite(addr, lamports, pending);
  }
}
