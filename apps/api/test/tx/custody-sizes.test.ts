// Wire sizes and compute-unit limits of the take-loan, repay and liquidate transactions per NFT standard, as the
// builders assemble them (custody accounts from the SDK's one list, the currency flow's worst case: SOL wrapped and
// unwrapped, a whitelist and a venue pull on the take), compiled as the factory compiles them, with the oracle's
// co-signature slot. Each must fit the 1,232-byte packet, loading from the protocol's lookup table when it does not
// without (the factory's rule).
import {
  type CoreCustody,
  getExtendInstruction,
  getLiquidateInstruction,
  getRepayInstruction,
  getTakeLoanInstruction,
  type NftCustody,
  type ProgrammableCustody,
} from "@cistern/sdk";
import { type Address, generateKeyPairSigner, type Instruction } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { compiledByKit, compileV0Transaction } from "../../src/tx/builder/compile-message.ts";
import { estimateComputeUnits } from "../../src/tx/builder/compute-units.ts";
import { currencyFlow } from "../../src/tx/builder/currency-flows.ts";
import { getProtocolTableAddresses } from "../../src/tx/builder/protocol-lookup-table.ts";
import { MAX_TRANSACTION_BYTES } from "../../src/tx/builder/transaction-factory.ts";
import {
  createAssociatedTokenIdempotent,
  NATIVE_MINT,
  setComputeUnitLimit,
  setComputeUnitPrice,
} from "../../src/tx/builder/wire-instructions.ts";

const key = async (): Promise<Address> => (await generateKeyPairSigner()).address;
const ATTESTED_COLLECTION = "So11111111111111111111111111111111111111112" as Address;
/** Any attestation: its 80 bytes are the same size whatever it says. */
const attestationOf = () => ({
  collateralValueBaseUnits: 1n,
  collection: ATTESTED_COLLECTION,
  currencyPriceMicroUsd: 1n,
  walletAgeSeconds: 0n,
  pastLoans: 0n,
  volumeMicroUsd: 0n,
  slot: 1n,
});
const BLOCKHASH = "EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N";

async function custodies(mint: Address, token: Address): Promise<Record<string, NftCustody>> {
  const pnft: ProgrammableCustody = {
    standard: "ProgrammableNft",
    mint,
    tokenAccount: token,
    metadata: await key(),
    metadataBump: 255,
    masterEdition: await key(),
    masterEditionBump: 254,
    tokenRecord: await key(),
    tokenRecordBump: 253,
    ruleSet: await key(),
  };
  const core: CoreCustody = { standard: "CoreNft", asset: mint, collection: await key(), owner: await key() };
  return { Nft: { standard: "Nft" }, ProgrammableNft: pnft, CoreNft: core };
}

/** Size and CU limit as the factory builds it: past 1,232 bytes, loading from the protocol's lookup table. */
async function measure(program: Address, feePayer: Address, body: Instruction[]) {
  const units = estimateComputeUnits([setComputeUnitLimit(1), setComputeUnitPrice(1n), ...body], program);
  const ixs = [setComputeUnitLimit(units), setComputeUnitPrice(1_000n), ...body];
  const plain = compileV0Transaction(feePayer, BLOCKHASH, 0, ixs).size;
  const table = { address: await key(), addresses: await getProtocolTableAddresses(program) };
  const loaded =
    plain > MAX_TRANSACTION_BYTES ? compiledByKit(feePayer, BLOCKHASH, 0, ixs, table).size : null;
  return { bytes: loaded ?? plain, plain, units };
}

const shown = (t: { bytes: number; plain: number }) =>
  t.bytes === t.plain ? `${t.bytes} B` : `${t.plain} B, ${t.bytes} B with the protocol table`;

describe("take-loan, repay and liquidate transactions per NFT standard fit one packet", () => {
  it("measures each standard's worst case (SOL wrapped, whitelist, venue pull) against 1,232 bytes", async () => {
    const [program, borrower, oracle, pool, bank, owner, liquidator, whitelist] = await Promise.all(
      Array.from({ length: 8 }, key),
    );
    const rows: string[] = [];
    const sizes: number[] = [];
    for (const standard of ["Nft", "ProgrammableNft", "CoreNft"] as const) {
      const mint = await key();
      const token = standard === "CoreNft" ? mint : await key();
      const custody = (await custodies(mint, token))[standard]!;
      // as the builders: the take receives SOL (its account created, closed after), the repay wraps what it pays
      const flow = await currencyFlow(borrower!, NATIVE_MINT);
      const repayFlow = await currencyFlow(borrower!, NATIVE_MINT, 1_000_000n);
      const take = await getTakeLoanInstruction({
        programAddress: program!,
        borrower: borrower!,
        oracle: oracle!,
        pool: pool!,
        poolType: "nft-pool",
        bank: bank!,
        collateralMint: mint,
        borrowerCollateralTokenAccount: token,
        borrowerCurrencyTokenAccount: flow.tokenAccount,
        whitelist,
        nonce: 1n,
        principalBaseUnits: 1n,
        durationSeconds: 86_400n,
        collateralAmountBaseUnits: 1n,
        expectedAprBps: 1,
        attestation: attestationOf(),
        pullFromVenue: {
          venues: await key(),
          venueProgram: await key(),
          reserve: await key(),
          position: await key(),
          venueVault: await key(),
        },
        custody,
        poolOwner: owner!,
      });
      // as takeLoanPlan: a classic NFT also creates the pool owner's token account
      const ownerAta =
        standard === "Nft" ? [createAssociatedTokenIdempotent(borrower!, await key(), owner!, mint)] : [];
      const takeTx = await measure(program!, borrower!, [...flow.before, ...ownerAta, take, ...flow.after]);
      const repay = await getRepayInstruction({
        programAddress: program!,
        borrower: borrower!,
        pool: pool!,
        bank: bank!,
        loan: await key(),
        borrowerCollateralTokenAccount: token,
        borrowerCurrencyTokenAccount: flow.tokenAccount,
        custody,
      });
      const collateralAta =
        standard === "Nft" ? [createAssociatedTokenIdempotent(borrower!, token, borrower!, mint)] : [];
      const repayTx = await measure(program!, borrower!, [
        ...repayFlow.before,
        ...collateralAta,
        repay,
        ...repayFlow.after,
      ]);
      // an extend with a whitelist, SOL wrapped for the interest and unwrapped after (as extendPlan)
      const extend = await getExtendInstruction({
        programAddress: program!,
        borrower: borrower!,
        oracle: oracle!,
        pool: pool!,
        bank: bank!,
        oldLoan: await key(),
        collateralMint: mint,
        borrowerCurrencyTokenAccount: repayFlow.tokenAccount,
        whitelist,
        nonce: 2n,
        principalBaseUnits: 1n,
        durationSeconds: 86_400n,
        collateralAmountBaseUnits: 1n,
        expectedAprBps: 1,
        attestation: attestationOf(),
        custody,
        poolOwner: owner!,
      });
      const extendTx = await measure(program!, borrower!, [...repayFlow.before, extend, ...repayFlow.after]);
      const dest = standard === "CoreNft" ? owner! : await key();
      const liquidate = await getLiquidateInstruction({
        programAddress: program!,
        liquidator: liquidator!,
        pool: pool!,
        bank: bank!,
        loan: await key(),
        poolOwnerCollateralTokenAccount: dest,
        custody: { custody, borrower: borrower!, poolOwner: owner! },
      });
      const destAta =
        standard === "Nft" ? [createAssociatedTokenIdempotent(liquidator!, dest, owner!, mint)] : [];
      const liquidateTx = await measure(program!, liquidator!, [...destAta, liquidate]);
      rows.push(
        `${standard}: take-loan ${shown(takeTx)} / ${takeTx.units} CU limit, extend ${shown(extendTx)} / ${extendTx.units} CU, repay ${shown(repayTx)} / ${repayTx.units} CU, liquidate ${shown(liquidateTx)} / ${liquidateTx.units} CU`,
      );
      sizes.push(takeTx.bytes, extendTx.bytes, repayTx.bytes, liquidateTx.bytes);
    }
    console.log(rows.join("\n"));
    for (const bytes of sizes) expect(bytes).toBeLessThanOrEqual(MAX_TRANSACTION_BYTES);
  });
});
