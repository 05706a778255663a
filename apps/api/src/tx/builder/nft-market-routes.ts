import { address } from "@cistern/sdk";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { withErrors } from "../../http/schemas.ts";
import type { NftListing } from "../../venues/nft/nft-market-venue.ts";
import type { TxContext } from "../tx-context.ts";
import { badRequest, toRequestError } from "../tx-errors.ts";
import { body, Pubkey, parseBaseUnits } from "./builder-schemas.ts";
import { instantSellPlan, quoteInstantSell, quoteMortgage, takeMortgagePlan } from "./nft-market-builder.ts";
import { buyPlan, delistPlan, listPlan, sellToBidPlan } from "./nft-trade-builder.ts";
import { parseBuildOptions } from "./priority-fees.ts";
import { builderRoute, type CommonBody, measurePlanCosts } from "./route-kit.ts";

const Duration = Type.Integer({ minimum: 1, maximum: 31_536_000, description: "seconds (>= 86400)" });
const BaseUnits = (description: string) =>
  Type.String({ maxLength: 40, description: `${description}, base units` });

const InstantSellBody = body({
  borrower: Pubkey,
  loan: Pubkey,
  minPrice: Type.Optional(BaseUnits("the least bid accepted (the price shown); the best bid when absent")),
});
const MainInstantSellBody = body({
  signer: Pubkey,
  loanAddress: Pubkey,
  escrowAddress: Pubkey,
  sellNowPrice: BaseUnits("the bid price the borrower accepted"),
  amountToSend: BaseUnits("what the borrower expects to keep after the loan is repaid"),
});
const MortgageBody = body({
  buyer: Pubkey,
  nftMint: Pubkey,
  duration: Duration,
  amount: Type.Optional(BaseUnits("principal (the most the pool lends when absent)")),
  pool: Type.Optional(Pubkey),
});

const ListBody = body({
  seller: Pubkey,
  nftMint: Pubkey,
  currency: Pubkey,
  price: BaseUnits("the asking price"),
});
const DelistBody = body({ seller: Pubkey, nftMint: Pubkey });
const BuyBody = body({
  buyer: Pubkey,
  nftMint: Pubkey,
  maxPrice: Type.Optional(
    BaseUnits("the most the buyer pays (the price shown); the listing's price when absent"),
  ),
});
const SellToBidBody = body({
  seller: Pubkey,
  nftMint: Pubkey,
  currency: Pubkey,
  minPrice: Type.Optional(BaseUnits("the least bid accepted (the price shown); the best bid when absent")),
});
interface MortgageFields {
  buyer: string;
  nftMint: string;
  duration: number;
  amount?: string;
  pool?: string;
}
const mortgageInput = (b: MortgageFields) => ({
  buyer: b.buyer,
  mint: b.nftMint,
  durationSeconds: b.duration,
  ...(b.amount !== undefined ? { amount: parseBaseUnits("amount", b.amount) } : {}),
  ...(b.pool !== undefined ? { pool: b.pool } : {}),
});

/** Listings by currency (mint), then cheapest first: base units of different mints do not compare. */
export function byCurrencyThenPrice(
  a: { currency: string; price: bigint },
  b: { currency: string; price: bigint },
): number {
  if (a.currency !== b.currency) return a.currency < b.currency ? -1 : 1;
  return a.price < b.price ? -1 : a.price > b.price ? 1 : 0;
}

const listingView = (l: NftListing) => ({
  mint: l.mint,
  collection: l.collection,
  seller: l.seller,
  currency: l.currencyMint,
  price: l.price.toString(),
  ...(l.standard ? { standard: l.standard } : {}),
});
const ListingSchema = Type.Object({
  mint: Pubkey,
  collection: Pubkey,
  seller: Pubkey,
  currency: Pubkey,
  price: Type.String({ description: "base units of currency" }),
  standard: Type.Optional(
    Type.Union(
      [
        Type.Literal("classic"),
        Type.Literal("programmable"),
        Type.Literal("core"),
        Type.Literal("compressed"),
      ],
      {
        description:
          "the NFT's standard, when the venue records it; a mortgage buys a classic NFT or a Core asset (for now)",
      },
    ),
  ),
});

/** NFT market routes: list, delist, buy, sell into a bid, instant sell, mortgage (builders and quotes) and the market's listings and bids. */
export function registerNftMarketRoutes(app: FastifyInstance, tx: TxContext): void {
  const STANDARDS =
    "a classic NFT, a programmable NFT (through Token Metadata and its rule set), a Core asset or a compressed NFT " +
    "(`nftMint` its asset id; its leaf and a fresh proof read from DAS)";
  builderRoute<CommonBody & { seller: string; nftMint: string; currency: string; price: string }>(
    app,
    tx,
    "/nft/list",
    `List the seller's NFT on the NFT market at a price in a currency: ${STANDARDS}. Kind Normal.`,
    ListBody,
    (b) => listPlan(tx, { ...b, price: parseBaseUnits("price", b.price) }),
  );
  builderRoute<CommonBody & { seller: string; nftMint: string }>(
    app,
    tx,
    "/nft/delist",
    "Withdraw the seller's listing: the NFT returns to the seller. Kind Normal.",
    DelistBody,
    (b) => delistPlan(tx, b),
  );
  builderRoute<CommonBody & { buyer: string; nftMint: string; maxPrice?: string }>(
    app,
    tx,
    "/nft/buy",
    `Buy a listed NFT outright (${STANDARDS}), paying at most maxPrice. Kind Normal.`,
    BuyBody,
    (b) =>
      buyPlan(tx, {
        buyer: b.buyer,
        nftMint: b.nftMint,
        ...(b.maxPrice !== undefined ? { maxPrice: parseBaseUnits("maxPrice", b.maxPrice) } : {}),
      }),
  );
  builderRoute<CommonBody & { seller: string; nftMint: string; currency: string; minPrice?: string }>(
    app,
    tx,
    "/nft/sell-to-bid",
    `Sell the seller's NFT (${STANDARDS}) into the best bid on its collection in a currency, for at least ` +
      "minPrice. 422 when no bid is there or it fell below minPrice. Kind Normal.",
    SellToBidBody,
    (b) =>
      sellToBidPlan(tx, {
        seller: b.seller,
        nftMint: b.nftMint,
        currency: b.currency,
        ...(b.minPrice !== undefined ? { minPrice: parseBaseUnits("minPrice", b.minPrice) } : {}),
      }),
  );
  builderRoute<CommonBody & { borrower: string; loan: string; minPrice?: string }>(
    app,
    tx,
    "/nft/instant-sell",
    "Sell an NFT loan's collateral to the best collection bid on the NFT market and repay the loan from the " +
      "proceeds in one transaction (MarketSell); the borrower keeps the rest and the loan ends Sold. 422 " +
      "(SaleShort) when no bid covers what is owed. Kind Normal.",
    InstantSellBody,
    (b) =>
      instantSellPlan(tx, {
        borrower: b.borrower,
        loan: b.loan,
        ...(b.minPrice !== undefined ? { minPrice: parseBaseUnits("minPrice", b.minPrice) } : {}),
      }),
  );
  builderRoute<
    CommonBody & {
      signer: string;
      loanAddress: string;
      escrowAddress: string;
      sellNowPrice: string;
      amountToSend: string;
    }
  >(
    app,
    tx,
    "/transactions/instant-sell",
    "The main API's instant sell (the spec's call): as POST /nft/instant-sell for `signer`'s loan, refused when " +
      "`escrowAddress` is not the loan's escrow, the best bid fell below `sellNowPrice`, or `amountToSend` is more " +
      "than the sale leaves after repaying the loan now.",
    MainInstantSellBody,
    async (b) => {
      const minPrice = parseBaseUnits("sellNowPrice", b.sellNowPrice);
      const { quote } = await quoteInstantSell(tx, { borrower: b.signer, loan: b.loanAddress });
      if (parseBaseUnits("amountToSend", b.amountToSend, { allowZero: true }) > BigInt(quote.borrowerKeeps))
        throw badRequest(`amountToSend is more than the ${quote.borrowerKeeps} base units the sale leaves`);
      return instantSellPlan(tx, {
        borrower: b.signer,
        loan: b.loanAddress,
        escrow: b.escrowAddress,
        minPrice,
      });
    },
  );
  builderRoute<CommonBody & MortgageFields>(
    app,
    tx,
    "/nft/take-mortgage",
    "Buy a listed NFT with a mortgage: the buyer pays the down payment, the best mortgage-enabled pool of the " +
      "listing's currency that accepts its collection (or `pool`) lends the rest at its mortgage APR (at most its " +
      "LTV of the lower of the oracle's value and the price), and the NFT stays in the loan's escrow until " +
      "repaid. Kind NormalCoSigned.",
    MortgageBody,
    (b) => takeMortgagePlan(tx, mortgageInput(b)),
  );
  app.post(
    "/nft/take-mortgage-quote",
    {
      schema: {
        description:
          "The terms of a mortgage before signing: price, down payment, loan, APR, duration, interest and total cost.",
        tags: ["loan calculator"],
        body: MortgageBody,
      },
    },
    async (request) => {
      try {
        const body = request.body as MortgageFields & CommonBody;
        const input = mortgageInput(body);
        const { terms } = await quoteMortgage(tx, input);
        // the SOL the transaction takes besides the down payment, measured on the transaction the build issues
        const options = parseBuildOptions(body.options, tx.config.maxPriorityFeeLamports);
        const [costs] = await measurePlanCosts(tx, await takeMortgagePlan(tx, input), options);
        return { ...terms, costs: costs ?? null };
      } catch (error) {
        throw toRequestError(error);
      }
    },
  );
  app.post(
    "/nft/instant-sell-quote",
    {
      schema: {
        description:
          "The terms of an instant sell before signing: the best bid, what repays the loan now and what the borrower " +
          "keeps. 422 SaleShort when no bid covers what is owed.",
        tags: ["loan calculator"],
        body: InstantSellBody,
      },
    },
    async (request) => {
      try {
        const body = request.body as { borrower: string; loan: string } & CommonBody;
        const { quote } = await quoteInstantSell(tx, body);
        // the SOL the sale takes or gives back besides the currency it settles (the bidder's new account's rent,
        // the rent of what it closes), measured on the transaction the build issues
        const options = parseBuildOptions(body.options, tx.config.maxPriorityFeeLamports);
        const [costs] = await measurePlanCosts(tx, await instantSellPlan(tx, body), options);
        return { ...quote, costs: costs ?? null };
      } catch (error) {
        throw toRequestError(error);
      }
    },
  );
  app.get(
    "/nft/market",
    {
      schema: {
        description:
          "One collection on the NFT market in one currency: its floor (the cheapest listing), best bid, listings " +
          "cheapest first and bids best first (the local NFT market on localnet, Tensor in production).",
        tags: ["nft market"],
        querystring: Type.Object({ collection: Pubkey, currency: Pubkey }, { additionalProperties: false }),
        response: withErrors({
          200: Type.Object({
            venue: Type.Union([Type.Literal("local"), Type.Literal("tensor")]),
            collection: Pubkey,
            currency: Pubkey,
            floorPrice: Type.Union([Type.String(), Type.Null()]),
            bestBidPrice: Type.Union([Type.String(), Type.Null()]),
            listings: Type.Array(ListingSchema),
            bids: Type.Array(Type.Object({ bid: Pubkey, bidder: Pubkey, price: Type.String() })),
          }),
        }),
      },
    },
    async (request) => {
      const q = request.query as { collection: string; currency: string };
      try {
        const m = await tx.nftMarket.collection({
          collection: address(q.collection),
          currencyMint: address(q.currency),
        });
        return {
          venue: tx.nftMarket.name,
          collection: q.collection,
          currency: q.currency,
          floorPrice: m.floorPrice?.toString() ?? null,
          bestBidPrice: m.bestBidPrice?.toString() ?? null,
          listings: m.listings.map(listingView),
          bids: m.bids.map((b) => ({ bid: b.bid, bidder: b.bidder, price: b.price.toString() })),
        };
      } catch (error) {
        throw toRequestError(error);
      }
    },
  );
  app.get(
    "/nft/mortgage-listings",
    {
      schema: {
        description:
          "NFTs for sale, by currency then cheapest first: the listings in the collections that open " +
          "mortgage-enabled pools accept, in those pools' currencies, each with the pools that would lend on it " +
          "(mortgage APR, LTV, longest duration; exact terms: POST /nft/take-mortgage-quote), and the listings of " +
          "the catalogue's compressed collections in every catalogue currency (no pool: the lending program buys " +
          "only a mint into a loan). Every one is bought outright with POST /nft/buy.",
        tags: ["nft market"],
        response: withErrors({
          200: Type.Array(
            Type.Object({
              listing: ListingSchema,
              pools: Type.Array(
                Type.Object({
                  pool: Pubkey,
                  mortgageAprBps: Type.Integer(),
                  ltvBps: Type.Integer(),
                  maxDurationSeconds: Type.Integer(),
                }),
              ),
            }),
          ),
        }),
      },
    },
    async () => {
      try {
        const snapshot = await tx.state.snapshot();
        const offers = new Map<
          string,
          { pool: string; mortgageAprBps: number; ltvBps: number; maxDurationSeconds: number }[]
        >();
        for (const [pool, p] of snapshot.pools) {
          if (
            p.poolType !== "nft-pool" ||
            p.status !== "Open" ||
            !p.flags.mortgage ||
            p.conditions.whitelistEnabled
          )
            continue;
          for (const c of p.collections) {
            const key = `${c.id}:${p.currencyMint}`;
            const list = offers.get(key) ?? [];
            list.push({
              pool,
              mortgageAprBps: p.mortgageAprBps,
              ltvBps: c.ltvBps,
              maxDurationSeconds: Number(p.maxDurationSeconds),
            });
            offers.set(key, list);
          }
        }
        // compressed NFTs are for sale too, though no pool finances them: their collections in every currency
        const catalog = await tx.app.catalog.getCatalog();
        for (const c of catalog.collections.filter((x) => x.standard === "Compressed"))
          for (const t of catalog.tokens)
            if (!offers.has(`${c.collectionId}:${t.mint}`)) offers.set(`${c.collectionId}:${t.mint}`, []);
        const answers = [];
        for (const key of offers.keys()) {
          const [collection, currency] = key.split(":") as [string, string];
          const m = await tx.nftMarket.collection({
            collection: address(collection),
            currencyMint: address(currency),
          });
          const pools = offers.get(key)!.sort((a, b) => a.mortgageAprBps - b.mortgageAprBps);
          for (const l of m.listings)
            answers.push({
              listing: listingView(l),
              // a compressed NFT is bought outright (the lending program buys only a mint into a loan)
              pools: l.standard === "compressed" ? [] : pools,
              currency: l.currencyMint,
              price: l.price,
            });
        }
        return answers.sort(byCurrencyThenPrice).map(({ listing, pools }) => ({ listing, pools }));
      } catch (error) {
        throw toRequestError(error);
      }
    },
  );
}
