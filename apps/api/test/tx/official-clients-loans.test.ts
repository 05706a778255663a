// The ecosystem's official clients against a loan taken through the API on the localnet: mpl-token-metadata's
// transferV1 / burnV1 of a pNFT and mpl-core's transfer / burn of a Core asset are refused while the loan holds them
// and land once it is repaid; then the umi DAS plugin reads every burnt asset (classic, pNFT, Core, compressed) as a
// hosted DAS does: burnt, with its last owner.

import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  decodeCoreAsset,
  decodeTokenRecord,
  findAssociatedTokenPda,
  findBankPda,
  findPoolPda,
  findTokenRecordPda,
} from "@cistern/sdk";
import { type DasApiInterface, dasApi } from "@metaplex-foundation/digital-asset-standard-api";
import {
  burn as burnCore,
  fetchAsset,
  fetchCollection,
  transfer as transferCore,
} from "@metaplex-foundation/mpl-core";
import {
  burnV1,
  findMetadataPda,
  mplTokenMetadata,
  TokenStandard,
  transferV1,
} from "@metaplex-foundation/mpl-token-metadata";
import { setComputeUnitLimit } from "@metaplex-foundation/mpl-toolbox";
import { keypairIdentity, publicKey, type Umi } from "@metaplex-foundation/umi";
import { createUmi } from "@metaplex-foundation/umi-bundle-defaults";
import { type Address, createKeyPairSignerFromPrivateKeyBytes, type KeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ALL_STANDARDS_PRICES,
  DEMO_CORE_COLLECTION,
  DEMO_PNFT_COLLECTION,
  writeCatalogWithAllStandards,
} from "../helpers/nft-standards-catalog.ts";
import {
  buildSignSend,
  startTxWorld,
  TEST_POOL_LIMITS,
  type TxWorld,
  USDC_MINT,
} from "./support/tx-world.ts";

const DAY = 86_400;

/** One wallet as both clients see it: a kit signer (the API's transactions) and a umi identity (Metaplex's). */
async function wallet(w: TxWorld) {
  const seed = new Uint8Array(randomBytes(32));
  const signer = await createKeyPairSignerFromPrivateKeyBytes(seed);
  const umi = createUmi(w.net.rpcUrl).use(mplTokenMetadata()).use(dasApi());
  umi.use(keypairIdentity(umi.eddsa.createKeypairFromSeed(seed)));
  expect(umi.identity.publicKey.toString()).toBe(signer.address);
  const given = await w.net.faucet(signer.address);
  await w.net.fundWallet(signer.address, { lamports: 50_000_000_000n });
  return { signer, umi, given };
}

/** What umi throws when the program refused the transaction in simulation (a program error, not a client check). */
const REFUSED_ON_CHAIN = /Token is locked|custom program error: 0x[0-9a-f]+/;

const das = (umi: Umi) => umi.rpc as unknown as DasApiInterface;
const send = (umi: Umi, b: ReturnType<typeof burnV1>) =>
  setComputeUnitLimit(umi, { units: 400_000 }).add(b).sendAndConfirm(umi);

describe("official Metaplex clients on assets in a loan, and DAS on burnt assets", () => {
  let w: TxWorld;
  let dir: string;
  let pool: Address;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cistern-official-"));
    w = await startTxWorld({
      env: { CATALOG_FILE: writeCatalogWithAllStandards(dir) },
      prices: ALL_STANDARDS_PRICES,
    });
    await w.net.setDemoRuleSetPrograms([w.programId]);
    const lender = await wallet(w);
    const [bank] = await findBankPda(w.programId, lender.signer.address, USDC_MINT);
    const created = await buildSignSend(
      w.app,
      "/nft/create-pool",
      {
        bank,
        owner: lender.signer.address,
        amount: "5000000000",
        mint: USDC_MINT,
        seed: "9",
        param: {
          apr: 2000,
          limits: TEST_POOL_LIMITS,
          collections: [
            { collection: DEMO_PNFT_COLLECTION.collectionId, collectionLtv: 5000, exposure: 10000 },
            { collection: DEMO_CORE_COLLECTION.collectionId, collectionLtv: 5000, exposure: 10000 },
          ],
        },
      },
      [lender.signer],
    );
    expect(created.sent.error).toBeUndefined();
    pool = (await findPoolPda(w.programId, lender.signer.address, 9n))[0];
    w.tx.state.invalidate();
  }, 180_000);
  afterAll(async () => {
    await w?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function borrow(borrower: KeyPairSigner, nftMint: string) {
    const r = await buildSignSend(
      w.app,
      "/nft/take-loan",
      { borrower: borrower.address, nftMint, duration: DAY, amount: "100000000", pool },
      [borrower],
    );
    expect(r.sent.error).toBeUndefined();
    return r.built.metadata.loan as Address;
  }

  async function repay(borrower: KeyPairSigner, loan: Address) {
    await w.net.fundWallet(borrower.address, { tokens: [{ mint: USDC_MINT, amount: 10_000_000n }] });
    const r = await buildSignSend(w.app, "/nft/repay-loan", { borrower: borrower.address, loans: [loan] }, [
      borrower,
    ]);
    expect(r.sent.error).toBeUndefined();
    expect((await w.tx.state.getLoans([loan]))[0]?.status).toBe("Repaid");
  }

  async function lockOf(mint: string, owner: string) {
    const token = await findAssociatedTokenPda(owner as Address, mint as Address);
    const [acc] = await w.tx.state.getAccounts([(await findTokenRecordPda(mint as Address, token))[0]]);
    w.tx.state.invalidate();
    return acc ? decodeTokenRecord(acc.data) : null;
  }

  /** DAS (through the umi plugin) until the asset reads burnt. */
  async function burntAsset(umi: Umi, id: string) {
    for (;;) {
      const a = await das(umi).getAsset(publicKey(id));
      if (a.burnt) return a;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it("pNFT: transferV1 and burnV1 are refused while the loan locks it; after repay transferV1 lands and burnV1 burns it, which DAS reads burnt with the last owner", async () => {
    const b = await wallet(w);
    const friend = await wallet(w);
    const mint = b.given.programmableNfts[0]!.mint;
    const collectionMetadata = findMetadataPda(b.umi, {
      mint: publicKey(b.given.programmableNfts[0]!.collectionId),
    });
    const loan = await borrow(b.signer, mint);
    expect(await lockOf(mint, b.signer.address)).toEqual({ state: "Locked", delegate: loan });
    const transferIx = (umi: Umi, to: string) =>
      transferV1(umi, {
        mint: publicKey(mint),
        authority: umi.identity,
        tokenOwner: umi.identity.publicKey,
        destinationOwner: publicKey(to),
        tokenStandard: TokenStandard.ProgrammableNonFungible,
        authorizationRules: publicKey(b.given.programmableNfts[0]!.ruleSet),
      });
    await expect(send(b.umi, transferIx(b.umi, friend.signer.address))).rejects.toThrow(REFUSED_ON_CHAIN);
    await expect(
      send(
        b.umi,
        burnV1(b.umi, {
          mint: publicKey(mint),
          authority: b.umi.identity,
          tokenOwner: b.umi.identity.publicKey,
          tokenStandard: TokenStandard.ProgrammableNonFungible,
          collectionMetadata,
        }),
      ),
    ).rejects.toThrow(REFUSED_ON_CHAIN);
    expect(await lockOf(mint, b.signer.address)).toEqual({ state: "Locked", delegate: loan });
    expect((await das(b.umi).getAsset(publicKey(mint))).ownership.owner).toBe(b.signer.address);

    await repay(b.signer, loan);
    await send(b.umi, transferIx(b.umi, friend.signer.address));
    expect((await das(b.umi).getAsset(publicKey(mint))).ownership.owner).toBe(friend.signer.address);
    await send(
      friend.umi,
      burnV1(friend.umi, {
        mint: publicKey(mint),
        authority: friend.umi.identity,
        tokenOwner: friend.umi.identity.publicKey,
        tokenStandard: TokenStandard.ProgrammableNonFungible,
        collectionMetadata,
      }),
    );
    const burnt = await burntAsset(b.umi, mint);
    expect(burnt).toMatchObject({
      id: mint,
      interface: "ProgrammableNFT",
      burnt: true,
      ownership: { owner: friend.signer.address },
    });
  }, 180_000);

  it("Core: transfer and burn are refused while the loan owns it; after repay transfer lands and burn burns it, which DAS reads burnt with the last owner", async () => {
    const b = await wallet(w);
    const friend = await wallet(w);
    const id = b.given.coreAssets[0]!.asset;
    const collection = await fetchCollection(b.umi, publicKey(b.given.coreAssets[0]!.collectionId));
    const loan = await borrow(b.signer, id);
    const owner = async () => {
      const [acc] = await w.tx.state.getAccounts([id as Address]);
      w.tx.state.invalidate();
      return acc ? decodeCoreAsset(acc.data)?.owner : null;
    };
    expect(await owner()).toBe(loan);
    await expect(
      transferCore(b.umi, {
        asset: await fetchAsset(b.umi, publicKey(id)),
        collection,
        newOwner: publicKey(friend.signer.address),
      }).sendAndConfirm(b.umi),
    ).rejects.toThrow(REFUSED_ON_CHAIN);
    await expect(
      burnCore(b.umi, { asset: await fetchAsset(b.umi, publicKey(id)), collection }).sendAndConfirm(b.umi),
    ).rejects.toThrow(REFUSED_ON_CHAIN);
    expect(await owner()).toBe(loan);

    await repay(b.signer, loan);
    expect(await owner()).toBe(b.signer.address);
    await transferCore(b.umi, {
      asset: await fetchAsset(b.umi, publicKey(id)),
      collection,
      newOwner: publicKey(friend.signer.address),
    }).sendAndConfirm(b.umi);
    expect(await owner()).toBe(friend.signer.address);
    await burnCore(friend.umi, {
      asset: await fetchAsset(friend.umi, publicKey(id)),
      collection: await fetchCollection(friend.umi, collection.publicKey),
    }).sendAndConfirm(friend.umi);
    const burnt = await burntAsset(b.umi, id);
    expect(burnt).toMatchObject({
      id,
      interface: "MplCoreAsset",
      burnt: true,
      ownership: { owner: friend.signer.address },
    });
    // the burnt asset stays out of its last owner's listing, as on a hosted DAS
    const listed = await das(b.umi).getAssetsByOwner({ owner: publicKey(friend.signer.address) });
    expect(listed.items.map((a) => a.id)).not.toContain(id);
  }, 180_000);

  it("classic NFT: burnV1 by its owner, and DAS reads it burnt with the last owner", async () => {
    const b = await wallet(w);
    const nft = b.given.nfts[0]!;
    await send(
      b.umi,
      burnV1(b.umi, {
        mint: publicKey(nft.mint),
        authority: b.umi.identity,
        tokenOwner: b.umi.identity.publicKey,
        tokenStandard: TokenStandard.NonFungible,
        collectionMetadata: findMetadataPda(b.umi, { mint: publicKey(nft.collectionId) }),
      }),
    );
    expect(await burntAsset(b.umi, nft.mint)).toMatchObject({
      interface: "V1_NFT",
      burnt: true,
      ownership: { owner: b.signer.address },
      content: { metadata: { name: nft.name } },
    });
  }, 120_000);
});
