import {
  type Address,
  appendTransactionMessageInstructions,
  type Commitment,
  createTransactionMessage,
  getBase64Encoder,
  getSignatureFromTransaction,
  type Instruction,
  pipe,
  type Rpc,
  type RpcSubscriptions,
  type Signature,
  type SignatureNotificationsApi,
  type SlotNotificationsApi,
  type SolanaRpcApi,
  sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type TransactionSigner,
} from "@solana/kit";
import type { DeployAccountInfo, DeployTransport } from "./deploy-transport.ts";

/**
 * A {@link DeployTransport} over a kit Rpc and RpcSubscriptions: the same code deploys to localnet and devnet.
 * @param input.commitment - commitment for reads and confirmation (default "confirmed")
 */
export function createRpcDeployTransport(input: {
  rpc: Rpc<SolanaRpcApi>;
  rpcSubscriptions: RpcSubscriptions<SignatureNotificationsApi & SlotNotificationsApi>;
  commitment?: Commitment;
}): DeployTransport {
  const { rpc, rpcSubscriptions } = input;
  const commitment = input.commitment ?? "confirmed";
  const sendAndConfirm = sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions } as Parameters<
    typeof sendAndConfirmTransactionFactory
  >[0]);
  return {
    async getMinimumBalanceForRentExemption(spaceBytes: bigint): Promise<bigint> {
      return await rpc.getMinimumBalanceForRentExemption(spaceBytes, { commitment }).send();
    },
    async getAccount(address: Address): Promise<DeployAccountInfo | null> {
      const { value } = await rpc.getAccountInfo(address, { encoding: "base64", commitment }).send();
      if (!value) return null;
      return {
        owner: value.owner,
        executable: value.executable,
        lamports: value.lamports,
        data: new Uint8Array(getBase64Encoder().encode(value.data[0])),
      };
    },
    async waitForNextSlot(): Promise<void> {
      const start = await rpc.getSlot({ commitment }).send();
      for (let attempt = 0; attempt < 100; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        if ((await rpc.getSlot({ commitment }).send()) > start) return;
      }
      throw new Error(`slot did not advance past ${start} within 20 s`);
    },
    async sendInstructions(
      instructions: readonly Instruction[],
      feePayer: TransactionSigner,
    ): Promise<Signature> {
      const { value: latestBlockhash } = await rpc.getLatestBlockhash({ commitment }).send();
      const message = pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(feePayer, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(latestBlockhash, m),
        (m) => appendTransactionMessageInstructions(instructions, m),
      );
      const transaction = await signTransactionMessageWithSigners(message);
      await sendAndConfirm(transaction as Parameters<typeof sendAndConfirm>[0], { commitment });
      return getSignatureFromTransaction(transaction);
    },
  };
}
