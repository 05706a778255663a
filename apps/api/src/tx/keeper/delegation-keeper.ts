import { address } from "@cistern/sdk";
import type { KeyPairSigner } from "@solana/kit";
import type { FastifyBaseLogger } from "fastify";
import { delegateInstructionFor } from "../builder/delegation-builder.ts";
import type { TxContext } from "../tx-context.ts";
import { sendAsKeeper } from "./keeper-send.ts";

/** Advisory lock of the delegation keeper leader (one process of many sends). */
export const DELEGATION_KEEPER_LOCK_KEY = 7_402_003;

/** What one round did, bank by bank. */
export interface DelegationRound {
  leader: boolean;
  delegated: { bank: string; amount: string; signature: string }[];
  failed: { bank: string; error: string }[];
}

export interface DelegationKeeper {
  readonly address: string;
  runRound(): Promise<DelegationRound>;
  start(intervalMs: number): void;
  stop(): void;
}

/**
 * The delegation keeper: every round the leader (advisory lock) finds the banks whose owner chose this keeper
 * (Bank.delegationKeeper, set by SetDelegation) and delegates their idle liquidity to the pinned lending venue
 * (marginfi v2 when configured, through the lending program's CPI),
 * signing with its own key, which the program lets do nothing else (funds only move between the bank's vault
 * and its venue position); through marginfi a bank with nothing idle gets a Delegate 0 (marginfi accrues, the
 * bank's books take the interest). No state between rounds: a restart resumes from the chain.
 */
export function createDelegationKeeper(
  tx: TxContext,
  signer: KeyPairSigner,
  log: Pick<FastifyBaseLogger, "info" | "warn">,
): DelegationKeeper {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<DelegationRound> | undefined;

  async function delegate(bankAddress: string, mint: string, amount: bigint): Promise<string> {
    const bank = address(bankAddress);
    const d = await tx.lendingVenue.delegation(bank, address(mint), await tx.clock.recentUnixTime());
    if (d === null) throw new Error("no lending venue reserve for this currency");
    const ix = await delegateInstructionFor(tx, { bank, delegation: d, authority: signer.address, amount });
    return sendAsKeeper(tx, signer, [ix]);
  }

  async function round(): Promise<DelegationRound> {
    const out: DelegationRound = { leader: false, delegated: [], failed: [] };
    out.leader = await tx.app.db.tryAdvisoryLock(DELEGATION_KEEPER_LOCK_KEY);
    if (!out.leader) return out;
    tx.state.invalidate();
    const { banks } = await tx.state.snapshot();
    // through marginfi a round with nothing idle still marks the position (Delegate 0: marginfi accrues, the bank's
    // books take its interest), so delegatedLiquidity follows marginfi's curve hour by hour
    const marks = tx.lendingVenue.name === "marginfi";
    for (const [bank, account] of banks) {
      if (account.delegationKeeper !== signer.address) continue;
      if (account.availableLiquidity === 0n && !(marks && account.delegatedLiquidity > 0n)) continue;
      try {
        const signature = await delegate(bank, account.mint, account.availableLiquidity);
        out.delegated.push({ bank, amount: account.availableLiquidity.toString(), signature });
        log.info(
          { bank, owner: account.owner, amount: account.availableLiquidity.toString(), signature },
          "delegation keeper delegated a bank's idle liquidity to the lending venue",
        );
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        out.failed.push({ bank, error: message });
        log.warn({ bank, error: message }, "delegation keeper could not delegate; next round retries");
      }
    }
    return out;
  }

  return {
    address: signer.address,
    runRound() {
      running ??= round().finally(() => {
        running = undefined;
      });
      return running;
    },
    start(intervalMs) {
      if (timer !== undefined) return;
      timer = setInterval(() => {
        void this.runRound().catch((error: unknown) =>
          log.warn({ err: error }, "delegation keeper round failed; next round retries"),
        );
      }, intervalMs);
      timer.unref();
    },
    stop() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    },
  };
}
