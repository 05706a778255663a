import { fileURLToPath } from "node:url";
import { getAssociatedTokenAddress, type LocalnetHandle, loadOrCreateKeypair } from "@cistern/localnet";
import {
  type Attestation,
  findBankPda,
  getClosePoolInstruction,
  getCreateBankInstruction,
  getCreatePoolInstruction,
  getDepositInstruction,
  getExtendInstruction,
  getInitializeConfigInstruction,
  getLiquidateInstruction,
  getRepayInstruction,
  getTakeLoanInstruction,
} from "@cistern/sdk";
import {
  type Address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  type Instruction,
  type KeyPairSigner,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from "@solana/kit";

export const LENDING_SO = fileURLToPath(
  new URL("../../../../programs/lending/build/lending.so", import.meta.url),
);
export const USDC_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v" as Address;

/** Drives the lending program on a localnet over JSON-RPC with the sdk's instruction builders. */
export async function createLendingDriver(net: LocalnetHandle) {
  const programAddress = net.programs[0]!.programId as Address;
  const rpc = createSolanaRpc(net.rpcUrl);

  async function send(payer: KeyPairSigner, instructions: Instruction[]): Promise<string> {
    const { value: blockhash } = await rpc.getLatestBlockhash().send();
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    );
    const signed = await signTransactionMessageWithSigners(message);
    const signature = getSignatureFromTransaction(signed);
    await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: "base64" }).send();
    for (let i = 0; i < 100; i++) {
      const { value } = await rpc.getSignatureStatuses([signature]).send();
      const status = value[0];
      if (status?.err) throw new Error(`transaction failed: ${JSON.stringify(status.err)}`);
      if (status?.confirmationStatus === "confirmed" || status?.confirmationStatus === "finalized")
        return signature;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error("transaction not confirmed");
  }

  // The program accepts only its upgrade authority as config admin; on localnet that is the faucet keypair.
  const admin = await createKeyPairSignerFromBytes(loadOrCreateKeypair(net.faucetKeypairPath).secretKey);
  const oracle = await generateKeyPairSigner();
  const treasury = await generateKeyPairSigner();
  await net.faucet(admin.address);
  await net.faucet(treasury.address);
  await send(admin, [
    await getInitializeConfigInstruction({
      programAddress,
      admin,
      oracle: oracle.address,
      treasury: treasury.address,
      protocolFeeBps: 2000,
    }),
  ]);

  return {
    programAddress,
    rpc,
    send,
    admin,
    /** The config's treasury wallet (protocol fees reach its token accounts by CollectFees). */
    treasury: treasury.address,
    async createLender(depositBaseUnits: bigint) {
      const lender = await generateKeyPairSigner();
      await net.faucet(lender.address);
      const source = (await getAssociatedTokenAddress(lender.address, USDC_MINT)) as Address;
      await send(lender, [
        await getCreateBankInstruction({ programAddress, owner: lender, mint: USDC_MINT }),
        await getDepositInstruction({
          programAddress,
          owner: lender,
          mint: USDC_MINT,
          sourceTokenAccount: source,
          amountBaseUnits: depositBaseUnits,
        }),
      ]);
      const [bank] = await findBankPda(programAddress, lender.address, USDC_MINT);
      return { lender, bank };
    },
    async createPool(lender: KeyPairSigner, seed: bigint, collections: Address[]) {
      const instruction = await getCreatePoolInstruction({
        programAddress,
        owner: lender,
        currencyMint: USDC_MINT,
        poolType: "nft-pool",
        seed,
        params: {
          flags: { autoSell: false, mortgage: false, compounding: false },
          loanAprBps: 5000,
          mortgageAprBps: 0,
          maxDurationSeconds: 7n * 86_400n,
          minAmountMicroUsd: 10_000_000n,
          maxAmountMicroUsd: 100_000_000_000n,
          conditions: {
            isEnabled: false,
            whitelistEnabled: false,
            liquidationThresholdBps: 0,
            minAgeSeconds: 0n,
            minLoanCount: 0n,
            minVolumeMicroUsd: 0n,
            whitelist: null,
          },
          collections: collections.map((id) => ({ id, ltvBps: 6000, exposureBps: 5000 })),
        },
      });
      await send(lender, [instruction]);
      return instruction.accounts![1]!.address;
    },
    async closePool(lender: KeyPairSigner, pool: Address) {
      return send(lender, [getClosePoolInstruction({ programAddress, owner: lender, pool })]);
    },
    async takeLoan(input: {
      borrower: KeyPairSigner;
      pool: Address;
      bank: Address;
      nft: Address;
      collection: Address;
      nonce: bigint;
      principal: bigint;
      durationSeconds: bigint;
    }) {
      const slot = await rpc.getSlot({ commitment: "confirmed" }).send();
      const attestation: Attestation = {
        collateralValueBaseUnits: 1_000_000_000n,
        collection: input.collection,
        currencyPriceMicroUsd: 1_000_000n,
        walletAgeSeconds: 0n,
        pastLoans: 0n,
        volumeMicroUsd: 0n,
        slot,
      };
      const instruction = await getTakeLoanInstruction({
        poolType: "nft-pool",
        programAddress,
        borrower: input.borrower,
        oracle,
        pool: input.pool,
        bank: input.bank,
        collateralMint: input.nft,
        borrowerCollateralTokenAccount: (await getAssociatedTokenAddress(
          input.borrower.address,
          input.nft,
        )) as Address,
        borrowerCurrencyTokenAccount: (await getAssociatedTokenAddress(
          input.borrower.address,
          USDC_MINT,
        )) as Address,
        nonce: input.nonce,
        principalBaseUnits: input.principal,
        durationSeconds: input.durationSeconds,
        collateralAmountBaseUnits: 1n,
        expectedAprBps: 5000,
        attestation,
      });
      const signature = await send(input.borrower, [instruction]);
      return { loan: instruction.loan, signature };
    },
    async extend(input: {
      borrower: KeyPairSigner;
      pool: Address;
      bank: Address;
      oldLoan: Address;
      nft: Address;
      collection: Address;
      nonce: bigint;
      principal: bigint;
      durationSeconds: bigint;
    }) {
      const slot = await rpc.getSlot({ commitment: "confirmed" }).send();
      const instruction = await getExtendInstruction({
        programAddress,
        borrower: input.borrower,
        oracle,
        pool: input.pool,
        bank: input.bank,
        oldLoan: input.oldLoan,
        collateralMint: input.nft,
        borrowerCurrencyTokenAccount: (await getAssociatedTokenAddress(
          input.borrower.address,
          USDC_MINT,
        )) as Address,
        nonce: input.nonce,
        principalBaseUnits: input.principal,
        durationSeconds: input.durationSeconds,
        collateralAmountBaseUnits: 1n,
        expectedAprBps: 5000,
        attestation: {
          collateralValueBaseUnits: 1_000_000_000n,
          collection: input.collection,
          currencyPriceMicroUsd: 1_000_000n,
          walletAgeSeconds: 0n,
          pastLoans: 0n,
          volumeMicroUsd: 0n,
          slot,
        },
      });
      const signature = await send(input.borrower, [instruction]);
      return { loan: instruction.loan, signature };
    },
    async repay(input: {
      borrower: KeyPairSigner;
      pool: Address;
      bank: Address;
      loan: Address;
      nft: Address;
    }) {
      return send(input.borrower, [
        await getRepayInstruction({
          programAddress,
          borrower: input.borrower,
          pool: input.pool,
          bank: input.bank,
          loan: input.loan,
          borrowerCollateralTokenAccount: (await getAssociatedTokenAddress(
            input.borrower.address,
            input.nft,
          )) as Address,
          borrowerCurrencyTokenAccount: (await getAssociatedTokenAddress(
            input.borrower.address,
            USDC_MINT,
          )) as Address,
        }),
      ]);
    },
    async liquidate(input: { lender: Address; pool: Address; bank: Address; loan: Address; nft: Address }) {
      await net.fundWallet(input.lender, { tokens: [{ mint: input.nft, amount: 0n }] });
      return send(admin, [
        await getLiquidateInstruction({
          programAddress,
          liquidator: admin,
          pool: input.pool,
          bank: input.bank,
          loan: input.loan,
          poolOwnerCollateralTokenAccount: (await getAssociatedTokenAddress(
            input.lender,
            input.nft,
          )) as Address,
        }),
      ]);
    },
  };
}
