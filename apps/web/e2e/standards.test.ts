/**
 * @vitest-environment node
 */
import { registerCompressedMarketJourney } from "./standards/compressed-market-33.ts";
import { registerCompressedNftJourney } from "./standards/compressed-nft-33.ts";
import { registerCompressedSaleJourney } from "./standards/compressed-sale-33.ts";
import { registerCompressedSolJourney } from "./standards/compressed-sol-44.ts";
import { registerCoreSalesJourney } from "./standards/core-sales-32.ts";
import { registerMarginfiJourney } from "./standards/marginfi-34.ts";
import { registerNftMarketPnftJourney } from "./standards/nft-market-pnft-32.ts";
import { registerNftStandardsJourney } from "./standards/nft-standards-32.ts";
import { registerPnftMortgageJourney } from "./standards/pnft-mortgage-32.ts";
import { registerPnftRequestJourney } from "./standards/pnft-request-32.ts";
import { registerRequestsExtendJourney } from "./standards/requests-extend-33.ts";
import { declareStandardsWorld } from "./standards/world.ts";

// The NFT-standard journeys (#32, #33 and after) in ONE world: one stack (localnet + API + web build) and one
// Chromium, started once by declareStandardsWorld (standards/world.ts says what the world holds: every standard in
// the catalogue, fixed collection values, marginfi pinned as the lending venue, the demo rule set allowing the
// lending program and the NFT market, the protocol's lookup table). A stack costs 20-60 s to start (marginfi's
// group and banks included); each journey here costs only its own steps.
//
// How to add a journey:
// 1. Write e2e/standards/<journey>.ts exporting `register<Journey>Journey(world: GetWorld)` that declares one
//    `describe` with its own beforeAll (fresh `Keypair.generate()` wallets funded by fundJourneyWallet, pages from
//    openJourneyPage, its own bids / listings / pools), an afterAll that closes its pages (closePages), and its `it`s
//    reading the world through `world().stack` / `world().marketProgram` at run time (never at registration).
// 2. Register it below. Wallets are the journey's own, but the chain is shared: a borrower borrows from its own
//    lender's pool (borrowNftOnPage's `pool`, from getPoolOf), never "whatever offer is best"; do not assert on
//    counts other journeys can change (all pools, all loans), do not change the world's set-up (the rule set, the
//    prices) from a journey and do not delegate to marginfi outside the marginfi journey. If a journey truly needs
//    another stack configuration, give it its own file.
//    What the journeys below rely on: no other journey lists or buys a Cistern Shell (compressed-market counts the
//    market maker's three), leaves a Storm Petrel listed in USDC before nft-market-pnft runs (it buys the first such
//    card, the one the API lists first; pnft-mortgage lists two after it and buys both), offers mortgages on the Koi
//    (core-sales expects its 15%), posts a request of 20 USDC for 5 days (requests-extend finds its row by those
//    terms) or delegates to marginfi (marginfi reads the bank's rate).
// 3. Order matters only for the clock: a journey that advances the localnet clock (and runs the keeper, which
//    liquidates EVERY overdue loan) goes after the ones that do not, at the end of the list; a new journey that
//    leaves the clock alone goes before the clock movers.
// 4. Run: `cd apps/web && npx vitest run e2e/standards.test.ts` (`-t "<describe name>"` runs one journey on the
//    same world).

const world = declareStandardsWorld();

// journeys that leave the clock alone
registerCompressedMarketJourney(world);
registerNftMarketPnftJourney(world);
registerCoreSalesJourney(world);
registerPnftMortgageJourney(world);
registerCompressedSaleJourney(world);
registerRequestsExtendJourney(world);
registerPnftRequestJourney(world);
registerCompressedSolJourney(world);
// journeys that move the clock forward (26 h each, then a keeper round; marginfi 30 days): last
registerCompressedNftJourney(world);
registerNftStandardsJourney(world);
registerMarginfiJourney(world);
