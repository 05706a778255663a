// A compressed NFT's take-loan per currency, as takeLoanPlan assembles it and the factory compiles it (issue #44): the
// leaf's MetadataArgs (the demo's inline-SVG uri) and its proof travel in the transaction, and from a SOL pool the
// wrapped SOL account is created before and closed after. With the demo tree's shape (depth 14, canopy 13: 1 proof
// node) it fits 1,232 bytes in SOL and USDC (the borrower's USDC account created or not); with 3 proof nodes (canopy
// 11, the shape the demo had) the SOL one does not, and the factory answers 422 TRANSACTION_TOO_LARGE (5007) saying
// what fills it, never "send fewer items".
import { DEMO_WORLD, getDemoImage } from "@cistern/localnet";
import { getPriorityFeeOptions, ERROR_CODES as PROTOCOL_CODES } from "@cistern/protocol";
import {
  type CompressedCustody,
  encodeBubblegumMetadataArgs,
  getTakeLoanInstruction,
  type VenuePull,
} from "@cistern/sdk";
import { type Address, generateKeyPairSigner, type Instruction } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { ApiError, ERROR_CODES } from "../../src/errors/api-error.ts";
import { compiledByKit, compileV0Transaction } from "../../src/tx/builder/compile-message.ts";
import { currencyFlow } from "../../src/tx/builder/currency-flows.ts";
import { describeLoanLoad } from "../../src/tx/builder/nft-custody.ts";
import { getProtocolTableAddresses } from "../../src/tx/builder/protocol-lookup-table.ts";
import { createTransactionFactory, MAX_TRANSACTION_BYTES } from "../../src/tx/builder/transaction-factory.ts";
import {
  NATIVE_MINT,
  setComputeUnitLimit,
  setComputeUnitPrice,
} from "../../src/tx/builder/wire-instructions.ts";
import type { ChainClock } from "../../src/tx/chain/chain-clock.ts";
import type { IssuedMessageStore } from "../../src/tx/sender/issued-messages.ts";

const key = async (): Promise<Address> => (await generateKeyPairSigner()).address;
const BLOCKHASH = "EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N";
const SHELLS = DEMO_WORLD.compressedCollections[0]!;
const USDC = DEMO_WORLD.tokens.find((t) => t.symbol === "USDC")!.mint as Address;

/** A Cistern Shell as the demo mints it (MintToCollectionV1: its name, symbol, inline-SVG uri, one creator). */
async function shell(owner: Address, proofNodes: number): Promise<CompressedCustody> {
  const leaf = 9_999; // a 4-digit label: the longest uri the faucet's leaves reach for a while
  const metadataArgs = encodeBubblegumMetadataArgs({
    name: `${SHELLS.itemName} #${leaf + 1}`,
    symbol: SHELLS.symbol,
    uri: getDemoImage(SHELLS.itemColor, String(leaf + 1)),
    sellerFeeBasisPoints: 500,
    primarySaleHappened: false,
    isMutable: true,
    editionNonce: null,
    tokenStandard: 0,
    collection: { key: SHELLS.collectionId as Address, verified: true },
    uses: null,
    tokenProgramVersion: 0,
    creators: [{ address: await key(), verified: false, share: 100 }],
  });
  return {
    standard: "CompressedNft",
    tree: SHELLS.tree as Address,
    treeConfig: await key(),
    treeConfigBump: 255,
    assetId: await key(),
    assetBump: 254,
    nonce: BigInt(leaf),
    root: new Uint8Array(32),
    proof: await Promise.all(Array.from({ length: proofNodes }, key)),
    dataHash: new Uint8Array(32),
    creatorHash: new Uint8Array(32),
    metadataArgs,
    collection: SHELLS.collectionId as Address,
    owner,
    delegate: owner,
  };
}

interface Case {
  currency: Address;
  /** The borrower's currency account exists (takeLoanPlan then leaves out its creation, as for a USDC pool). */
  accountExists: boolean;
  whitelist?: boolean;
  pull?: boolean;
}

/** The take-loan's instructions as takeLoanPlan returns them for a Shell. */
async function takeBody(program: Address, custody: CompressedCustody, c: Case): Promise<Instruction[]> {
  const flow = await currencyFlow(custody.owner, c.currency);
  if (c.currency !== NATIVE_MINT && c.accountExists) flow.before = [];
  const pull: VenuePull | null = c.pull
    ? {
        venues: await key(),
        venueProgram: await key(),
        reserve: await key(),
        position: await key(),
        venueVault: await key(),
      }
    : null;
  const take = await getTakeLoanInstruction({
    poolType: "nft-pool",
    programAddress: program,
    borrower: custody.owner,
    oracle: await key(),
    pool: await key(),
    bank: await key(),
    collateralMint: custody.assetId,
    borrowerCollateralTokenAccount: custody.tree,
    borrowerCurrencyTokenAccount: flow.tokenAccount,
    whitelist: c.whitelist ? await key() : null,
    nonce: 1n,
    principalBaseUnits: 1n,
    durationSeconds: 86_400n,
    collateralAmountBaseUnits: 1n,
    expectedAprBps: 1,
    attestation: {
      collateralValueBaseUnits: 1n,
      collection: SHELLS.collectionId as Address,
      currencyPriceMicroUsd: 1n,
      walletAgeSeconds: 0n,
      pastLoans: 0n,
      volumeMicroUsd: 0n,
      slot: 1n,
    },
    pullFromVenue: pull,
    custody,
    poolOwner: await key(),
  });
  return [...flow.before, take, ...flow.after];
}

/** Wire bytes as the factory compiles it (the oracle's signature slot counted): past 1,232, with the protocol table. */
async function bytesOf(program: Address, feePayer: Address, body: Instruction[]): Promise<number> {
  const ixs = [setComputeUnitLimit(100_000), setComputeUnitPrice(1_000n), ...body];
  const plain = compileV0Transaction(feePayer, BLOCKHASH, 0, ixs).size;
  if (plain <= MAX_TRANSACTION_BYTES) return plain;
  const table = { address: await key(), addresses: await getProtocolTableAddresses(program) };
  return compiledByKit(feePayer, BLOCKHASH, 0, ixs, table).size;
}

describe("a compressed NFT's take-loan fits one packet in every currency", () => {
  it("the demo tree's shape (1 proof node): SOL and USDC (its account created or not) fit 1,232 bytes", async () => {
    const program = await key();
    const proofNodes = SHELLS.maxDepth - SHELLS.canopyDepth;
    expect(proofNodes).toBe(1);
    const custody = await shell(await key(), proofNodes);
    const rows: string[] = [];
    for (const c of [
      { currency: NATIVE_MINT, accountExists: false },
      { currency: USDC, accountExists: false },
      { currency: USDC, accountExists: true },
    ] satisfies Case[]) {
      const bytes = await bytesOf(program, custody.owner, await takeBody(program, custody, c));
      rows.push(
        `${c.currency === NATIVE_MINT ? "SOL" : `USDC, account ${c.accountExists ? "exists" : "created"}`}: ${bytes} B`,
      );
      expect(bytes, rows.at(-1)).toBeLessThanOrEqual(MAX_TRANSACTION_BYTES);
    }
    // measured, not a promise: a pool with a whitelist and a venue pull adds their accounts
    const worst = await bytesOf(
      program,
      custody.owner,
      await takeBody(program, custody, {
        currency: NATIVE_MINT,
        accountExists: false,
        whitelist: true,
        pull: true,
      }),
    );
    console.log(
      `a Cistern Shell's take-loan (${proofNodes} proof node, ${custody.metadataArgs.length}-byte metadata):\n${rows.join("\n")}\nSOL with a whitelist and a venue pull: ${worst} B`,
    );
  });

  it("3 proof nodes from a SOL pool: 422 TRANSACTION_TOO_LARGE (5007) telling the bytes and what fills them", async () => {
    const program = await key();
    const custody = await shell(await key(), 3);
    const body = await takeBody(program, custody, { currency: NATIVE_MINT, accountExists: false });
    const issued: string[] = [];
    const factory = createTransactionFactory({
      rpcUrl: "http://127.0.0.1:1",
      programId: program,
      clock: {
        lifetime: async () => ({ blockhash: BLOCKHASH, lastValidBlockHeight: 100 }),
        recentFees: async () => [],
      } as unknown as ChainClock,
      issued: {
        remember: async () => {
          issued.push("remembered");
        },
        prune: async () => {},
      } as unknown as IssuedMessageStore,
      lookupTable: async () => ({
        address: await key(),
        addresses: await getProtocolTableAddresses(program),
      }),
    });
    const refused = await factory
      .build({
        feePayer: custody.owner,
        groups: [body],
        options: getPriorityFeeOptions(),
        needsOracle: true,
        tooLargeReason: describeLoanLoad(custody),
      })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(refused).toBeInstanceOf(ApiError);
    const error = refused as ApiError;
    expect(error.code).toBe(ERROR_CODES.TRANSACTION_TOO_LARGE);
    expect(error.code).toBe(PROTOCOL_CODES.TRANSACTION_TOO_LARGE);
    expect(error.message).toMatch(
      /^This transaction would be 1,2\d\d bytes, over Solana's limit of 1,232 bytes: the compressed NFT's metadata \(\d+ bytes, its uri \d+\) and its proof \(3 accounts, the levels its tree keeps off chain\) travel in it\.$/,
    );
    expect(error.message).not.toMatch(/fewer/);
    // nothing over the limit is issued
    expect(issued).toEqual([]);
  });
});
