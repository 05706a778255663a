export {
  createTreeInstructions,
  getCompressedAssetId,
  getLeafHash,
  getMerkleTreeAccountSize,
  getRootFromProof,
  getTreeConfigAddress,
  mintToCollectionV1,
  mintV1,
  readMerkleTree,
  readTreeConfig,
  type TreeShape,
  transferLeaf,
  verifyCollectionLeaf,
} from "./bubblegum.ts";
export { type AccountWrite, Chain, type ChainEvent, SLOTS_PER_EPOCH } from "./chain.ts";
export { type CompressedNftGiven, mintLeaves, seedCompressedCollections } from "./compressed-seed.ts";
export { encodeMetadataArgs, type MetadataArgsInput, readMetadataArgs } from "./das/bubblegum-metadata.ts";
export { getDemoAddress, getDemoKeypair } from "./demo-address.ts";
export { runSeedSteps, type SeedContext, type SeedStep, seedDemoWorld } from "./demo-seed.ts";
export * from "./demo-world.ts";
export { isLocalnetRpcError, LocalnetRpcError, RPC_ERROR, type RpcErrorCode } from "./errors.ts";
export {
  generateLocalKeypair,
  keypairFromSecretKey,
  type LocalKeypair,
  loadOrCreateKeypair,
} from "./keypair.ts";
export {
  getComputeUnitLimitKitInstruction,
  getComputeUnitPriceKitInstruction,
  toKitInstruction,
} from "./kit-instruction.ts";
export * from "./marginfi/index.ts";
export {
  type ClassicNftSpec,
  getClassicNftMintInstructions,
  getDemoRuleSetAddress,
  getDemoRuleSetOperations,
  type ProgrammableNftSpec,
  readCollectionSize,
  readCoreCollectionMinted,
} from "./nft-mint.ts";
export {
  type LocalnetHandle,
  type LocalnetProgram,
  type StartLocalnetOptions,
  startLocalnet,
} from "./start-localnet.ts";
export { createOrUpdateRuleSetTransactions, getRuleSetAddress, type RuleV2 } from "./token-auth-rules.ts";
export {
  createProgrammableNftV1,
  getMasterEditionAddress,
  getMetadataAddress,
  getTokenRecordAddress,
  mintProgrammableNftV1,
  type NftMetadataArgs,
  transferProgrammableNftV1,
  verifyCollectionV1,
} from "./token-metadata.ts";
export { type BuildInstruction, buildSignedTransaction } from "./tx-builder.ts";
export {
  BUBBLEGUM_PROGRAM,
  loadVendoredPrograms,
  MARGINFI_PROGRAM,
  MPL_CORE_PROGRAM,
  readVendoredProgram,
  SPL_ACCOUNT_COMPRESSION_PROGRAM,
  SPL_NOOP_PROGRAM,
  TOKEN_AUTH_RULES_PROGRAM,
  VENDORED_PROGRAMS,
  VENDORED_PROGRAMS_DIR,
  type VendoredProgram,
} from "./vendored-programs.ts";
export { type FaucetResult, getAssociatedTokenAddress, WorldAdmin } from "./world-admin.ts";
