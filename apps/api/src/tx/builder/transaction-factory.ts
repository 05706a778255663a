import { randomInt } from "node:crypto";
import type { PriorityFeeOptions, TransactionCostsJson } from "@cistern/protocol";
import {
  computeUnitPrice,
  ERROR_MESSAGES,
  formatErrorMessage,
  JITO_TIP_ACCOUNTS,
  ERROR_CODES as PROTOCOL_CODES,
  TransactionKind,
  transactionCostsToJson,
} from "@cistern/protocol";
import { address } from "@cistern/sdk";
import type { Address, Blockhash, Instruction } from "@solana/kit";
import { ApiError, ERROR_CODES } from "../../errors/api-error.ts";
import type { ChainClock } from "../chain/chain-clock.ts";
import { requireJsonRpc } from "../chain/json-rpc.ts";
import type { IssuedMessageStore } from "../sender/issued-messages.ts";
import { type ChainFailure, describeChainFailure, unprocessable } from "../tx-errors.ts";
import { compiledByKit, compileV0Transaction } from "./compile-message.ts";
import { estimateComputeUnits } from "./compute-units.ts";
import type { LookupTable } from "./protocol-lookup-table.ts";
import { measureTransactionCosts } from "./transaction-costs.ts";
import { setComputeUnitLimit, setComputeUnitPrice, systemTransfer } from "./wire-instructions.ts";

/** Largest compute budget of a transaction. */
const MAX_COMPUTE_UNITS = 1_400_000;
/** Wire size limit of a transaction, bytes. */
export const MAX_TRANSACTION_BYTES = 1232;

/** The builder's answer (spec "Transaction build response"). */
export interface BuildResponse {
  transactions: string[];
  kind: TransactionKind;
  lastValidBlockHeight: number;
  metadata: Record<string, unknown>;
}

/** What a builder needs to turn instructions into issued transactions. */
export interface TransactionFactory {
  /**
   * Builds one v0 transaction per instruction group (fee payer = `feePayer`): compute budget with a CU
   * limit from per-instruction estimates plus headroom (or, with `simulate`, from a simulation plus 20%:
   * then a failing transaction is answered 422 with the decoded program error before anything is issued),
   * priority fee from the node's recent fees capped by the options, a jito tip in jito mode (to one of Jito's
   * tip accounts at random; 422 JITO_UNAVAILABLE, nothing built, when the cluster lacks it). Every message
   * is remembered so the sender can recognise it.
   */
  build(input: {
    feePayer: Address;
    groups: Instruction[][];
    options: PriorityFeeOptions;
    needsOracle: boolean;
    metadata?: Record<string, unknown>;
    simulate?: boolean;
    /** The builder's words for accounts the transactions open or close ("the loan"), by address. */
    accountNames?: Record<string, string>;
    /**
     * What fills these transactions, told when one is over 1,232 bytes even with the protocol's lookup table (422
     * TRANSACTION_TOO_LARGE): "the compressed NFT's metadata (...) and proof (...) travel in it".
     */
    tooLargeReason?: string;
  }): Promise<BuildResponse>;
  /**
   * What the transactions `build` would issue cost the wallet (fee, tip, rent of the accounts they open, rent that
   * comes back), measured on the same transactions without issuing them: a quote's costs. One per group.
   */
  costs(input: {
    feePayer: Address;
    groups: Instruction[][];
    options: PriorityFeeOptions;
    simulate?: boolean;
    accountNames?: Record<string, string>;
    tooLargeReason?: string;
  }): Promise<(TransactionCostsJson | null)[]>;
  /** Whether the instructions fit one transaction (checked with a placeholder blockhash). */
  fits(feePayer: Address, instructions: Instruction[]): boolean;
}

const PLACEHOLDER_BLOCKHASH = "11111111111111111111111111111111" as Blockhash;

/** Reason told when the builder gave none. */
const DEFAULT_TOO_LARGE_REASON = "the accounts and data this one item needs do not fit one transaction";

/**
 * 422 TRANSACTION_TOO_LARGE for one transaction of `bytes`: what is over and why, never "send fewer items" (each
 * transaction a builder makes holds one item, or as many as fit).
 */
export function transactionTooLarge(bytes: number, reason = DEFAULT_TOO_LARGE_REASON): ApiError {
  const params = {
    bytes: bytes.toLocaleString("en-US"),
    limit: MAX_TRANSACTION_BYTES.toLocaleString("en-US"),
    reason,
  };
  return new ApiError(
    ERROR_CODES.TRANSACTION_TOO_LARGE,
    formatErrorMessage(ERROR_MESSAGES[PROTOCOL_CODES.TRANSACTION_TOO_LARGE], params),
    { params },
  );
}

function compile(feePayer: Address, blockhash: Blockhash, lastValid: number, instructions: Instruction[]) {
  return compileV0Transaction(feePayer, blockhash, lastValid, instructions);
}

function budgeted(units: number, price: bigint, tip: Instruction | null, body: Instruction[]) {
  return [setComputeUnitLimit(units), setComputeUnitPrice(price), ...body, ...(tip ? [tip] : [])];
}

/** Creates the factory. */
export function createTransactionFactory(deps: {
  rpcUrl: string;
  programId: string;
  clock: ChainClock;
  issued: IssuedMessageStore;
  /** The protocol's lookup table (null while none stands): a transaction too large without it loads from it. */
  lookupTable?: () => Promise<LookupTable | null>;
}): TransactionFactory {
  /** Compiles `instructions`; past 1,232 bytes, again loading what it can from the protocol's lookup table. */
  async function compileFitting(
    feePayer: Address,
    blockhash: Blockhash,
    lastValid: number,
    instructions: Instruction[],
  ) {
    const plain = compile(feePayer, blockhash, lastValid, instructions);
    if (plain.size <= MAX_TRANSACTION_BYTES || deps.lookupTable === undefined)
      return { ...plain, table: null };
    const table = await deps.lookupTable();
    return table === null
      ? { ...plain, table: null }
      : { ...compiledByKit(feePayer, blockhash, lastValid, instructions, table), table };
  }

  async function simulateUnits(base64: string): Promise<number> {
    const r = await requireJsonRpc<{
      value: { err: unknown; logs: string[] | null; unitsConsumed?: number };
    }>(deps.rpcUrl, "simulateTransaction", [
      base64,
      { encoding: "base64", sigVerify: false, replaceRecentBlockhash: true, commitment: "confirmed" },
    ]);
    if (r.value.err !== null && r.value.err !== undefined) {
      const failure = describeChainFailure(r.value.err, r.value.logs ?? [], deps.programId);
      // a pNFT's rule set refusing the loan is told in its own sentence, before anything is signed
      const ruleSet = failure.code === PROTOCOL_CODES.TRANSACTION_SEND_RULE_SET_REFUSED;
      const error: ApiError & { refusal?: ChainFailure } = unprocessable(
        ruleSet
          ? failure.message
          : `Transaction simulation failed: ${failure.name} (${failure.code}): ${failure.message}`,
      );
      // a program refusal keeps its code to the client
      if ((failure.code >= 6000 && failure.code <= 6999) || ruleSet) error.refusal = failure;
      throw error;
    }
    return r.value.unitsConsumed ?? 200_000;
  }

  // Tip accounts seen on the cluster (an account that exists keeps existing: it only receives lamports).
  const tipAccountsSeen = new Set<string>();
  async function pickTipAccount(): Promise<Address> {
    const tip = JITO_TIP_ACCOUNTS[randomInt(JITO_TIP_ACCOUNTS.length)]!;
    if (!tipAccountsSeen.has(tip)) {
      const r = await requireJsonRpc<{ value: unknown }>(deps.rpcUrl, "getAccountInfo", [
        tip,
        { encoding: "base64", commitment: "confirmed" },
      ]);
      if (r.value === null)
        throw new ApiError(
          ERROR_CODES.JITO_UNAVAILABLE,
          "Jito mode is not available on this cluster (Jito's tip account does not exist here); choose priority fees",
          { params: { tipAccount: tip } },
        );
      tipAccountsSeen.add(tip);
    }
    return address(tip);
  }

  let lastPrune = 0;
  /** Compiles each group into a budgeted transaction (CU limit, priority fee, tip), as `build` issues them. */
  async function prepare({
    feePayer,
    groups,
    options,
    simulate,
    tooLargeReason,
  }: {
    feePayer: Address;
    groups: Instruction[][];
    options: PriorityFeeOptions;
    simulate: boolean;
    tooLargeReason: string | undefined;
  }) {
    if (groups.length === 0) throw unprocessable("Nothing to build");
    const [lifetime, recent] = await Promise.all([deps.clock.lifetime(), deps.clock.recentFees()]);
    // Forget expired messages (at most once a second): a blockhash lives 150 blocks.
    if (Date.now() - lastPrune > 1000) {
      lastPrune = Date.now();
      await deps.issued.prune(lifetime.lastValidBlockHeight - 150);
    }
    const blockhash = lifetime.blockhash as Blockhash;
    const tipLamports = options.broadcastMode === "jito" ? options.jitoTipLamports : 0n;
    const tip = tipLamports > 0n ? systemTransfer(feePayer, await pickTipAccount(), tipLamports) : null;
    const computeUnits: number[] = [];
    const transactions = await Promise.all(
      groups.map(async (body, i) => {
        let units = estimateComputeUnits(budgeted(1, 1n, tip, body), deps.programId);
        if (simulate) {
          const probe = await compileFitting(
            feePayer,
            blockhash,
            lifetime.lastValidBlockHeight,
            budgeted(MAX_COMPUTE_UNITS, 1n, tip, body),
          );
          if (probe.size > MAX_TRANSACTION_BYTES) throw transactionTooLarge(probe.size, tooLargeReason);
          const used = await simulateUnits(probe.wireBase64);
          // Headroom: 20% + 5,000 CU for the budget instructions and state-dependent branches.
          units = Math.min(MAX_COMPUTE_UNITS, Math.ceil(used * 1.2) + 5_000);
        }
        computeUnits[i] = units;
        const price = computeUnitPrice(recent, options, units);
        const instructions = budgeted(units, price, tip, body);
        const tx = await compileFitting(feePayer, blockhash, lifetime.lastValidBlockHeight, instructions);
        return { ...tx, instructions, units, price, tipLamports: tip === null ? 0n : tipLamports };
      }),
    );
    return { transactions, computeUnits, lastValidBlockHeight: lifetime.lastValidBlockHeight };
  }

  /** The costs of each prepared transaction, measured on it (null when its simulation fails). */
  async function measureAll(
    feePayer: Address,
    prepared: Awaited<ReturnType<typeof prepare>>,
    names: Record<string, string> | undefined,
  ): Promise<(TransactionCostsJson | null)[]> {
    return Promise.all(
      prepared.transactions.map(async (tx) => {
        // costs the node cannot tell (a failed read) are answered as unknown, never guessed
        const costs = await measureTransactionCosts({
          rpcUrl: deps.rpcUrl,
          programId: deps.programId,
          feePayer,
          instructions: tx.instructions,
          messageBytes: tx.messageBytes,
          wireBase64: tx.wireBase64,
          table: tx.table,
          computeUnitLimit: tx.units,
          microLamportsPerComputeUnit: tx.price,
          tipLamports: tx.tipLamports,
          ...(names ? { names } : {}),
        }).catch(() => null);
        return costs === null ? null : transactionCostsToJson(costs);
      }),
    );
  }

  return {
    fits(feePayer, instructions) {
      try {
        const tx = compile(feePayer, PLACEHOLDER_BLOCKHASH, 0, budgeted(1, 1n, null, instructions));
        return tx.size <= MAX_TRANSACTION_BYTES;
      } catch {
        return false;
      }
    },
    async build({
      feePayer,
      groups,
      options,
      needsOracle,
      metadata,
      simulate = false,
      accountNames,
      tooLargeReason,
    }) {
      const prepared = await prepare({ feePayer, groups, options, simulate, tooLargeReason });
      const kind =
        groups.length > 1
          ? needsOracle
            ? TransactionKind.BundleCoSigned
            : TransactionKind.Bundle
          : needsOracle
            ? TransactionKind.NormalCoSigned
            : TransactionKind.Normal;
      // nothing over the limit is issued, not even the bundle's other transactions
      for (const tx of prepared.transactions)
        if (tx.size > MAX_TRANSACTION_BYTES) throw transactionTooLarge(tx.size, tooLargeReason);
      const transactions = await Promise.all(
        prepared.transactions.map(async (tx) => {
          await deps.issued.remember(tx.messageBytes, {
            kind,
            needsOracle,
            lastValidBlockHeight: prepared.lastValidBlockHeight,
          });
          return tx.wireBase64;
        }),
      );
      return {
        transactions,
        kind,
        lastValidBlockHeight: prepared.lastValidBlockHeight,
        metadata: {
          ...metadata,
          computeUnits: prepared.computeUnits,
          costs: await measureAll(feePayer, prepared, accountNames),
        },
      };
    },
    async costs({ feePayer, groups, options, simulate = false, accountNames, tooLargeReason }) {
      const prepared = await prepare({ feePayer, groups, options, simulate, tooLargeReason });
      for (const tx of prepared.transactions)
        if (tx.size > MAX_TRANSACTION_BYTES) throw transactionTooLarge(tx.size, tooLargeReason);
      return measureAll(feePayer, prepared, accountNames);
    },
  };
}
