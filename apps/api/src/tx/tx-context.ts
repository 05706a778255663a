import { address } from "@cistern/sdk";
import type { Address, KeyPairSigner } from "@solana/kit";
import type { AppContext } from "../app-context.ts";
import type { LendingVenueReader } from "../venues/lending/lending-venue.ts";
import { createLendingVenueReader } from "../venues/lending/lending-venue-reader.ts";
import { createLocalNftMarketVenue } from "../venues/nft/local-nft-market-venue.ts";
import type { NftMarketVenue } from "../venues/nft/nft-market-venue.ts";
import { createTensorNftMarketVenue } from "../venues/nft/tensor-nft-market-venue.ts";
import { createJupiterSwapVenue } from "../venues/swap/jupiter-swap-venue.ts";
import { createLocalSwapVenue } from "../venues/swap/local-swap-venue.ts";
import type { SwapVenue } from "../venues/swap/swap-venue.ts";
import { createSignedMessageStore, type SignedMessageStore } from "./auth/signed-message-store.ts";
import { createProtocolLookupTable, type ProtocolLookupTable } from "./builder/protocol-lookup-table.ts";
import {
  type BuildResponse,
  createTransactionFactory,
  type TransactionFactory,
} from "./builder/transaction-factory.ts";
import type { ChainClock } from "./chain/chain-clock.ts";
import { createLendingState, type LendingState } from "./chain/lending-state.ts";
import { loadOracleKeypair } from "./oracle/oracle-keypair.ts";
import { createIssuedMessageStore, type IssuedMessageStore } from "./sender/issued-messages.ts";
import type { TxConfig } from "./tx-config.ts";

/** Everything the write-path routes use, built once and passed explicitly. */
export interface TxContext {
  app: AppContext;
  config: TxConfig;
  programId: Address;
  /** The oracle key: co-signs take-loan / extend transactions the builder issued. */
  oracle: KeyPairSigner;
  /** The protocol's address lookup table (authority the oracle key), which long transactions load accounts from. */
  lookupTable: ProtocolLookupTable;
  state: LendingState;
  clock: ChainClock;
  issued: IssuedMessageStore;
  /** Single-use wallet-signed messages (link, chat login), in the database. */
  signedMessages: SignedMessageStore;
  factory: TransactionFactory;
  /** Where market sells (and later margin swaps) trade: the local AMM on localnet, Jupiter in production. */
  swapVenue: SwapVenue;
  /** Where banks delegate idle liquidity: marginfi v2 when configured (MARGINFI_GROUP), else the local venue. */
  lendingVenue: LendingVenueReader;
  /** Where NFTs are bought (mortgages) and sold (instant sell, auto-sell): the local market, Tensor in production. */
  nftMarket: NftMarketVenue;
}

export type { BuildResponse };

/** Builds the write-path services over the read side's context (loads or, on localnet, creates the oracle key). */
export async function createTxContext(app: AppContext, config: TxConfig): Promise<TxContext> {
  const programId = address(config.lendingProgramId);
  const oracle = await loadOracleKeypair(config.oracleKeypairPath, config.generateOracleKeypair);
  const clock = app.chainClock;
  const issued = createIssuedMessageStore(app.db);
  const lendingVenue = createLendingVenueReader(app.rpc, app.config, programId)!;
  const lookupTable = createProtocolLookupTable({
    rpcUrl: app.rpc.url,
    programId,
    authority: oracle.address,
    venueAddresses: async () => (await lendingVenue.tableAddresses?.()) ?? [],
  });
  return {
    app,
    config,
    programId,
    oracle,
    lookupTable,
    state: createLendingState(app.rpc, programId, config.snapshotTtlMs),
    clock,
    issued,
    signedMessages: createSignedMessageStore(app.db),
    factory: createTransactionFactory({
      rpcUrl: app.rpc.url,
      programId,
      clock,
      issued,
      lookupTable: () => lookupTable.get(),
    }),
    lendingVenue,
    swapVenue:
      config.swapVenue.kind === "local"
        ? createLocalSwapVenue(app.rpc, programId)
        : createJupiterSwapVenue({
            basePath: config.swapVenue.jupiterApiUrl,
            apiKey: config.swapVenue.jupiterApiKey,
          }),
    nftMarket:
      config.nftMarket.kind === "local"
        ? createLocalNftMarketVenue(app.rpc, programId)
        : createTensorNftMarketVenue({
            baseUrl: config.nftMarket.tensorApiUrl,
            apiKey: config.nftMarket.tensorApiKey,
            blockhash: async () =>
              (
                await app.rpc.call<{ value: { blockhash: string } }>("getLatestBlockhash", [
                  { commitment: "confirmed" },
                ])
              ).value.blockhash,
          }),
  };
}
