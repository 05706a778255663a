import type { Address, Instruction, Signature, TransactionSigner } from "@solana/kit";

/** What the deployer needs to know about an on-chain account. */
export interface DeployAccountInfo {
  owner: Address;
  executable: boolean;
  lamports: bigint;
  data: Uint8Array;
}

/**
 * The chain access the deployer uses. `createRpcDeployTransport` implements it over a kit Rpc +
 * RpcSubscriptions (localnet, devnet, mainnet); tests implement it over LiteSVM with the same instructions.
 */
export interface DeployTransport {
  /** Lamports an account of `spaceBytes` needs to be rent exempt. */
  getMinimumBalanceForRentExemption(spaceBytes: bigint): Promise<bigint>;
  /** The account at `address`, or null when it does not exist. */
  getAccount(address: Address): Promise<DeployAccountInfo | null>;
  /**
   * Builds one transaction from `instructions` (fee payer `feePayer`; every other signer is carried in the
   * instructions' account metas), signs, sends and waits for confirmation. Rejects when the transaction fails.
   */
  sendInstructions(instructions: readonly Instruction[], feePayer: TransactionSigner): Promise<Signature>;
  /**
   * Resolves once the cluster is past the slot of the last confirmed transaction (the loader refuses to
   * upgrade a program that was deployed or extended in the current slot).
   */
  waitForNextSlot(): Promise<void>;
}
