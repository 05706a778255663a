export { MARGINFI_DEMO_BANKS } from "./demo-banks.ts";
export {
  encodeMarginfiFeeState,
  ensureMarginfiFeeState,
  getMarginfiFeeStateAddress,
  MARGINFI_FEE_WALLET,
} from "./fee-state.ts";
export {
  I80F48_ONE,
  i80f48,
  MARGINFI_ERROR,
  type MarginfiBankConfig,
  type MarginfiHealthAccounts,
  type MarginfiInterestRate,
  marginfiAccountInitialize,
  marginfiAddBank,
  marginfiBankVaults,
  marginfiBorrow,
  marginfiConfigureBank,
  marginfiConfigureBankOracle,
  marginfiDeposit,
  marginfiDiscriminator,
  marginfiGroupInitialize,
  marginfiWithdraw,
  ORACLE_SETUP_PYTH_PUSH,
} from "./instructions.ts";
export {
  LOCALNET_ORACLE_WRITE_AUTHORITY,
  localnetOraclePrice,
  type MarginfiOracleFeed,
  ORACLE_FEED_EVERY_SLOTS,
  ORACLE_REPOST_AFTER_SECONDS,
  startMarginfiOracleFeed,
} from "./oracle-feed.ts";
export {
  encodePriceUpdateV2,
  PRICE_UPDATE_V2_SIZE,
  PYTH_FEEDS,
  PYTH_PRICE_EXPONENT,
  PYTH_PUSH_ORACLE_PROGRAM,
  PYTH_RECEIVER_PROGRAM,
  type PythFeed,
  pythFeedId,
  pythPriceFeedAddress,
  readPublishTime,
} from "./pyth-price-update.ts";
