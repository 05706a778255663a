import { getLeafHash, getRootFromProof, readMerkleTree } from "@cistern/localnet";
import { decodeLoanAccount } from "@cistern/sdk";
import type { Address } from "@solana/kit";
import { Keypair } from "@solana/web3.js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAccountData } from "../chain-reads.ts";
import { borrowNftOnPage, confirmed, createNftPoolThroughApi, shot } from "../journey-helpers.ts";
import { rpc } from "../stack.ts";
import { closePages, fundJourneyWallet, type GetWorld, getPoolOf, openJourneyPage, SHELLS } from "./world.ts";

// Issue #33: a new user borrows against a compressed NFT of the demo collection "Cistern Shells" in the browser (from
// this journey's lender's pool) and repays it, borrows against a second one and lets it default; after a clock jump
// the keeper moves the leaf to the pool owner. Who owns each leaf is read at every step through the localnet's DAS
// (getAsset) and through the tree itself: the leaf DAS describes hashes to the leaf its getAssetProof names, and that
// proof verifies against the tree account's current root.
// MOVES THE CLOCK (26 h) and runs a keeper round: register it after the journeys that leave the clock alone.

export function registerCompressedNftJourney(world: GetWorld): void {
  describe("loans against compressed NFTs (#33)", () => {
    const lenderKey = Keypair.generate();
    const borrowerKey = Keypair.generate();
    const pageErrors: string[] = [];
    let borrower: Page;
    let repaidLeaf: { assetId: string; name: string };
    let defaultedLeaf: { assetId: string; name: string };
    let pool: string;

    const me = () => borrowerKey.publicKey.toBase58() as Address;
    const lender = () => lenderKey.publicKey.toBase58();
    const rpcUrl = () => world().stack.localnet.rpcUrl;
    const das = <T>(method: string, params: unknown) => rpc<T>(rpcUrl(), method, params as unknown[]);

    /** The wallet's compressed assets as the localnet's DAS lists them: id, name, verified collection. */
    async function dasAssetsOf(owner: string) {
      const page = await das<{
        items: {
          id: string;
          compression: { compressed: boolean };
          content: { metadata: { name: string } };
          grouping: { group_key: string; group_value: string }[];
        }[];
      }>("getAssetsByOwner", { ownerAddress: owner, page: 1, limit: 1000 });
      return page.items
        .filter((a) => a.compression.compressed)
        .map((a) => ({
          assetId: a.id,
          name: a.content.metadata.name,
          collection: a.grouping.find((g) => g.group_key === "collection")?.group_value,
        }));
    }

    /**
     * Who owns the leaf: DAS getAsset's owner, checked against the tree: the leaf hash of that owner (with the asset's
     * delegate, nonce, data and creator hashes) is the leaf getAssetProof gives, and the proof hashes up to the root
     * the tree account holds now.
     */
    async function leafOwner(assetId: string): Promise<string> {
      const asset = await das<{
        ownership: { owner: string; delegate: string | null };
        compression: { tree: string; leaf_id: number; data_hash: string; creator_hash: string };
      }>("getAsset", { id: assetId });
      const proof = await das<{
        root: string;
        proof: string[];
        node_index: number;
        leaf: string;
        tree_id: string;
      }>("getAssetProof", { id: assetId });
      const owner = asset.ownership.owner;
      expect(
        getLeafHash({
          assetId,
          owner,
          delegate: asset.ownership.delegate ?? owner,
          nonce: BigInt(asset.compression.leaf_id),
          dataHash: asset.compression.data_hash,
          creatorHash: asset.compression.creator_hash,
        }),
      ).toBe(proof.leaf);
      const tree = readMerkleTree(await getAccountData(rpcUrl(), proof.tree_id));
      expect(proof.tree_id).toBe(SHELLS.tree);
      expect(getRootFromProof({ leaf: proof.leaf, proof: proof.proof, nodeIndex: proof.node_index })).toBe(
        tree!.root,
      );
      return owner;
    }

    /** The borrower's ongoing loan on `assetId` from the chain (the program's accounts by borrower). */
    async function loanOn(assetId: string) {
      const loans = await world().stack.tx.state.getBorrowerLoans(me());
      const found = loans.find((l) => l.loan.collateralMint === assetId && l.loan.status === "Ongoing");
      if (!found) throw new Error(`no ongoing loan on ${assetId}`);
      return {
        pubkey: found.pubkey,
        nftType: found.loan.nftType,
        escrow: found.loan.escrow,
        pool: found.loan.pool,
      };
    }

    /** The loan's loanType as the API's Loans read answers it (what the Loans page shows). */
    async function apiLoanType(loan: string): Promise<string | undefined> {
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        const body = (await (await fetch(`${world().stack.apiUrl}/loan/user?pubkey=${me()}`)).json()) as {
          loans: { pubkey: string; loanType: string }[];
        };
        const found = body.loans.find((l) => l.pubkey === loan);
        if (found) return found.loanType;
        await new Promise((r) => setTimeout(r, 500));
      }
      return undefined;
    }

    /** The Loans page's ongoing row of the NFT called `name`, once shown. */
    async function loansRow(name: string) {
      await borrower.goto(`${world().stack.webUrl}/loans`);
      const row = borrower.getByTestId("ongoing-loans").locator("tbody tr", { hasText: name }).first();
      await row.waitFor({ timeout: 30_000 });
      return row;
    }

    const loanStatus = async (loan: string) => decodeLoanAccount(await getAccountData(rpcUrl(), loan)).status;

    beforeAll(async () => {
      await fundJourneyWallet(world(), lenderKey);
      // the faucet gives one leaf of the collection a call: the borrower holds two
      const [, second] = await fundJourneyWallet(world(), borrowerKey, 2);
      const given = (await dasAssetsOf(me())).filter((a) => a.collection === SHELLS.collectionId);
      expect(given).toHaveLength(2);
      defaultedLeaf = given.find((a) => a.assetId === second!.compressedNfts[0]!.assetId)!;
      repaidLeaf = given.find((a) => a !== defaultedLeaf)!;
      borrower = await openJourneyPage(world(), borrowerKey, pageErrors);
    }, 120_000);
    afterAll(() => closePages(borrower));

    it("a lender lends against Cistern Shells; the borrower's leaves read 'Compressed NFT' on the Borrow page", async () => {
      const { stack } = world();
      await createNftPoolThroughApi(stack, lenderKey, { seed: "33", collections: [SHELLS.collectionId] });
      pool = await getPoolOf(world(), lenderKey);
      expect(await leafOwner(repaidLeaf.assetId)).toBe(me());
      await borrower.goto(`${stack.webUrl}/borrow`);
      const card = borrower
        .getByTestId("nft-list")
        .getByRole("button", { name: new RegExp(repaidLeaf.name.replace(/[#]/g, "\\$&")) });
      await card.getByText("Best offer").waitFor({ timeout: 30_000 });
      expect(await card.getByTestId("nft-standard").textContent()).toContain("Compressed NFT");
    }, 120_000);

    it("borrows against the first leaf at 1280 px: the loan PDA owns the leaf; Loans reads CompressedNft", async () => {
      const { stack } = world();
      await borrowNftOnPage(borrower, stack.webUrl, {
        nftName: repaidLeaf.name,
        amount: "20",
        days: "1",
        pool,
      });
      const loan = await loanOn(repaidLeaf.assetId);
      expect([loan.nftType, loan.pool]).toEqual(["CompressedNft", pool]);
      expect(loan.escrow).toBe(SHELLS.tree);
      expect(await leafOwner(repaidLeaf.assetId)).toBe(loan.pubkey);
      expect(await apiLoanType(loan.pubkey)).toBe("CompressedNft");
      const row = await loansRow(repaidLeaf.name);
      expect(await row.getByTestId("loan-standard").textContent()).toContain("Compressed NFT");
      // Extend moves the leaf to a new loan (the requests-extend journey walks it); the row offers an instant sell as
      // a Core asset's does (the compressed-sale journey sells one into a bid)
      expect(await row.getByTestId("instant-sell").count()).toBe(1);
      expect(await row.getByTestId("no-sale-why").count()).toBe(0);
      await shot(borrower, "33-loans-cnft-1280");
    }, 120_000);

    it("repays it on the Loans page: the leaf is the borrower's again (DAS and the tree)", async () => {
      const loan = await loanOn(repaidLeaf.assetId);
      const row = await loansRow(repaidLeaf.name);
      await confirmed(borrower, () => row.getByRole("button", { name: "Repay" }).click());
      expect(await loanStatus(loan.pubkey)).toBe("Repaid");
      expect(await leafOwner(repaidLeaf.assetId)).toBe(me());
    }, 120_000);

    it("borrows against the second leaf at 360 px; after a clock jump the keeper moves the leaf to the pool owner", async () => {
      const { stack } = world();
      await borrower.setViewportSize({ width: 360, height: 740 });
      await borrowNftOnPage(borrower, stack.webUrl, {
        nftName: defaultedLeaf.name,
        amount: "20",
        days: "1",
        pool,
      });
      const loan = await loanOn(defaultedLeaf.assetId);
      expect(loan.pool).toBe(pool);
      expect(await leafOwner(defaultedLeaf.assetId)).toBe(loan.pubkey);
      const row = await loansRow(defaultedLeaf.name);
      expect(await row.getByTestId("loan-standard").textContent()).toContain("Compressed NFT");
      // the Loans page fits the phone: no sideways scrolling
      expect(await borrower.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await shot(borrower, "33-loans-cnft-360");
      await borrower.setViewportSize({ width: 1280, height: 900 });

      await rpc(rpcUrl(), "localnet_advanceClock", [86_400 + 2 * 3_600]);
      await new Promise((r) => setTimeout(r, 1_000));
      const round = await stack.runKeeperRound();
      expect(round.liquidated.map((l) => l.loan)).toContain(loan.pubkey);
      expect(await loanStatus(loan.pubkey)).toBe("Liquidated");
      expect(await leafOwner(defaultedLeaf.assetId)).toBe(lender());
      // the repaid leaf is untouched by it: still the borrower's, its proof valid against the new root
      expect(await leafOwner(repaidLeaf.assetId)).toBe(me());
      expect(pageErrors).toEqual([]);
    }, 120_000);
  });
}
