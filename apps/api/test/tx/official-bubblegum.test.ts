// Metaplex's own client against `npm start`'s world (issue #44): mpl-bubblegum's getAssetWithProof (through the umi DAS
// plugin, from the localnet's DAS) and transfer move a Cistern Shell between wallets; the Shell received is then
// borrowed against through the API (quote, take-loan, sign, send), and the official transfer of that Shell by its
// former owner, while the loan PDA owns the leaf, is refused on chain: DAS still names the loan PDA.
import { type DasApiInterface, dasApi } from "@metaplex-foundation/digital-asset-standard-api";
import { getAssetWithProof, mplBubblegum, transfer } from "@metaplex-foundation/mpl-bubblegum";
import { type Umi as BaseUmi, keypairIdentity, publicKey } from "@metaplex-foundation/umi";
import { createUmi } from "@metaplex-foundation/umi-bundle-defaults";
import { createKeyPairSignerFromBytes } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NpmStartWorld, startNpmStartWorld } from "../helpers/npm-start-world.ts";
import { buildSignSend, post } from "./support/tx-world.ts";

const DAY = 86_400;
/** A umi whose RPC the DAS plugin extended. */
type Umi = BaseUmi & { rpc: DasApiInterface };

describe("mpl-bubblegum (the official client) on npm start's localnet and DAS", () => {
  let world: NpmStartWorld;

  beforeAll(async () => {
    world = await startNpmStartWorld("cistern-official-bgum-");
  }, 600_000);
  afterAll(async () => {
    await world?.close();
  });

  /** A umi with the Bubblegum and DAS plugins on the localnet, signing as a new wallet the faucet funded. */
  async function wallet(): Promise<{ umi: Umi; address: string; secretKey: Uint8Array; shell: string }> {
    const umi = createUmi(world.localnet.rpcUrl, "confirmed").use(mplBubblegum()).use(dasApi()) as Umi;
    const keypair = umi.eddsa.generateKeypair();
    umi.use(keypairIdentity(keypair));
    const given = await world.localnet.faucet(keypair.publicKey);
    return {
      umi,
      address: keypair.publicKey,
      secretKey: keypair.secretKey,
      shell: given.compressedNfts[0]!.assetId,
    };
  }

  /** The leaf's owner as the official DAS plugin reads it. */
  const ownerOf = async (umi: Umi, assetId: string) =>
    (await umi.rpc.getAsset(publicKey(assetId))).ownership.owner as string;

  it("getAssetWithProof + transfer move a Shell; once it is in a loan, the official transfer is refused", async () => {
    const alice = await wallet();
    const bob = await wallet();
    const shell = alice.shell;

    // getAssetWithProof reads getAsset and getAssetProof from our DAS, the proof cut at the tree's canopy (1 node)
    const withProof = await getAssetWithProof(alice.umi, publicKey(shell), { truncateCanopy: true });
    expect(withProof.leafOwner).toBe(alice.address);
    expect(withProof.proof).toHaveLength(1);
    await transfer(alice.umi, {
      ...withProof,
      leafOwner: alice.umi.identity,
      newLeafOwner: publicKey(bob.address),
    }).sendAndConfirm(alice.umi);
    await expect.poll(() => ownerOf(bob.umi, shell), { timeout: 30_000, interval: 250 }).toBe(bob.address);

    // Bob borrows against the Shell he received, from the Shell desk (SOL), through the API
    const signer = await createKeyPairSignerFromBytes(bob.secretKey);
    const body = { nftMint: shell, duration: DAY, borrower: bob.address };
    await expect
      .poll(async () => (await post(world.api.app, "/nft/quote", body)).status, {
        timeout: 60_000,
        interval: 500,
      })
      .toBe(200);
    const taken = await buildSignSend(world.api.app, "/nft/take-loan", body, [signer]);
    expect(taken.sent.error).toBeUndefined();
    const loan = taken.built.metadata.loan as string;
    await expect.poll(() => ownerOf(bob.umi, shell), { timeout: 30_000, interval: 250 }).toBe(loan);

    // the official transfer of the Shell in the loan: its proof names the loan PDA as owner, Bob cannot sign for it,
    // and a transfer signed by Bob as the owner does not verify against the tree
    const inLoan = await getAssetWithProof(bob.umi, publicKey(shell), { truncateCanopy: true });
    expect(inLoan.leafOwner).toBe(loan);
    const refused = await transfer(bob.umi, {
      ...inLoan,
      leafOwner: bob.umi.identity,
      newLeafOwner: publicKey(alice.address),
    })
      .sendAndConfirm(bob.umi)
      .then(
        () => null,
        (e: unknown) => String(e instanceof Error ? e.message : e),
      );
    expect(refused).not.toBeNull();
    expect(await ownerOf(bob.umi, shell)).toBe(loan);
  }, 180_000);
});
