import { decodeAddress, decodeBase58, encodeBase58 } from "./base58.ts";
import type { AccountWrite, Chain } from "./chain.ts";
import { getDemoAddress } from "./demo-address.ts";
import {
  DEMO_COLLECTIONS,
  DEMO_TOKENS,
  type DemoCollection,
  FAUCET_LAMPORTS,
  FAUCET_NFTS_PER_COLLECTION,
  getDemoImage,
} from "./demo-world.ts";
import { invalidParams } from "./errors.ts";
import type { LocalKeypair } from "./keypair.ts";
import { type ClassicNftSpec, getClassicNftMintInstructions } from "./nft-mint.ts";
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
import { type BuildInstruction, buildSignedTransaction } from "./tx-builder.ts";
import { parseWireTransaction } from "./wire.ts";

const U64_MAX = (1n << 64n) - 1n;
const SYSTEM_PROGRAM = "11111111111111111111111111111111";

export { getAssociatedTokenAddress };

/** What `localnet_faucet` handed out. */
export interface FaucetResult {
  lamports: string;
  tokens: { mint: string; symbol: string; amount: string; tokenAccount: string }[];
  nfts: { mint: string; collectionId: string; name: string; tokenAccount: string }[];
}

/**
 * Development-only state changes (clock, accounts, funding, faucet). Every change is applied with
 * setAccount and logged in the ledger, so it survives restarts like any transaction.
 */
export class WorldAdmin {
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
    const image =
      listed?.image ?? getDemoImage(c.image.match(/%23([0-9a-f]{6})/)?.[1] ?? "444444", String(index));
    return {
      mint: listed?.mint ?? getDemoAddress(`nft:${c.symbol}:${index}`),
      name,
      symbol: c.symbol,
      uri: image,
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
    const sent: { signature: Promise<string> | string; what: string }[] = [];
    for (const nft of nfts) {
      const ixs = getClassicNftMintInstructions(this.chain.svm, this.faucetKeypair.address, nft);
      if (ixs.length > 0) sent.push({ signature: this.sendAsFaucet(ixs), what: `mint ${nft.name}` });
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
   * their outcome is checked in the history once durable).
   */
  private sendAsFaucet(ixs: BuildInstruction[]): Promise<string> | string {
    const blockhash = decodeBase58(this.chain.latestBlockhash().blockhash);
    return this.chain.submit(
      parseWireTransaction(buildSignedTransaction(this.faucetKeypair, ixs, blockhash)),
      true,
    );
  }

  private nextFreeIndex(c: DemoCollection): number {
    let i = this.nextNftIndex.get(c.collectionId) ?? c.nfts.length + 1;
    while (this.chain.svm.getAccount(decodeAddress(getDemoAddress(`nft:${c.symbol}:${i}`)))) i++;
    this.nextNftIndex.set(c.collectionId, i + 1);
    return i;
  }

  /**
   * Gives a wallet SOL, USDC, every demo token and fresh demo NFTs (one per collection), the NFTs minted through
   * the real Token Metadata program and verified into their collection.
   */
  faucet(owner: string): Promise<FaucetResult> {
    decodeAddress(owner);
    return this.serial(async () => {
      const pending = new Map<string, AccountWrite>();
      this.lamportsWrite(owner, FAUCET_LAMPORTS, pending);
      const result: FaucetResult = { lamports: FAUCET_LAMPORTS.toString(), tokens: [], nfts: [] };
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
