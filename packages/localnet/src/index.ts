export { type AccountWrite, Chain, type ChainEvent, SLOTS_PER_EPOCH } from "./chain.ts";
export { getDemoAddress } from "./demo-address.ts";
export { runSeedSteps, type SeedContext, type SeedStep, seedDemoWorld } from "./demo-seed.ts";
export * from "./demo-world.ts";
export { isLocalnetRpcError, LocalnetRpcError, RPC_ERROR, type RpcErrorCode } from "./errors.ts";
export {
  generateLocalKeypair,
  keypairFromSecretKey,
  type LocalKeypair,
  loadOrCreateKeypair,
} from "./keypair.ts";
export { type ClassicNftSpec, getClassicNftMintInstructions } from "./nft-mint.ts";
export {
  type LocalnetHandle,
  type LocalnetProgram,
  type StartLocalnetOptions,
  startLocalnet,
} from "./start-localnet.ts";
export {
  getMasterEditionAddress,
  getMetadataAddress,
  type NftMetadataArgs,
} from "./token-metadata.ts";
export { type BuildInstruction, buildSignedTransaction } from "./tx-builder.ts";
export {
  loadVendoredPrograms,
  VENDORED_PROGRAMS,
  VENDORED_PROGRAMS_DIR,
  type VendoredProgram,
} from "./vendored-programs.ts";
export { type FaucetResult, getAssociatedTokenAddress, WorldAdmin } from "./world-admin.ts";
