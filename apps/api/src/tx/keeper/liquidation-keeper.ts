import { isLiquidatable } from "@cistern/protocol";
import type { KeyPairSigner } from "@solana/kit";
import type { FastifyBaseLogger } from "fastify";
import { liquidatePlan } from "../builder/liquidate-builder.ts";
import type { TxContext } from "../tx-context.ts";
import { type MigrationPass, migrateOldAccounts } from "./account-migration.ts";
import { collectProtocolFees, type FeeCollectionPass } from "./fee-collection.ts";
import { sendAsKeeper } from "./keeper-send.ts";

/** Advisory lock of the keeper leader (one keeper sends, whatever the number of API processes). */
export const KEEPER_LOCK_KEY = 7_402_002;
/** Most liquidations one round sends (the rest wait for the next round). */
export const MAX_LIQUIDATIONS_PER_ROUND = 20;
/** Auto-sales the keeper tries for one loan (each planned from a fresh read) before the classic liquidation. */
export const AUTO_SELL_ATTEMPTS = 2;

/** What one round did, loan by loan. */
export interface KeeperRound {
  /** False when another process leads: this one did nothing. */
  leader: boolean;
  /** `autoSold`: its collateral was sold into the bank (LiquidateSell); otherwise it went to the pool owner. */
  liquidated: { loan: string; signature: string; autoSold: boolean }[];
  failed: { loan: string; error: string }[];
  /** Old-layout pools and loans brought up first (after a program upgrade). */
  migration: MigrationPass;
  /** Protocol fees moved from the banks' vaults to the treasury after the liquidations (CollectFees). */
  fees: FeeCollectionPass;
}

export interface LiquidationKeeper {
  /** The keeper's own fee payer (holds only SOL for fees; receives the escrows' rent). */
  readonly address: string;
  /** One round: if leader, liquidates the Ongoing loans past expiry + grace on the chain clock. */
  runRound(): Promise<KeeperRound>;
  /** Runs a round every `intervalMs` until stop(). */
  start(intervalMs: number): void;
  stop(): void;
}

/**
 * The liquidation keeper: every round the leader (advisory lock KEEPER_LOCK_KEY, so one process of many)
 * lists the program's Ongoing loans, keeps those past expiry + grace on the chain clock and, for each, builds
 * the same Liquidate transaction as POST /…/liquidate-loan with the keeper as fee payer, signs it with the
 * keeper key and sends it. The collateral goes to the pool owner, as when the lender clicks (an auto-sell pool
 * sells it into the bank instead: into the best bid that covers what is owed, read afresh for each loan so that a
 * bid an earlier loan of the round filled is not tried again; the classic way only when no sale covers it or the
 * sales tried do not land). Loans are taken one after the other, oldest expiry first. Idempotent: a
 * loan liquidated meanwhile is no longer Ongoing (refused by the builder, or by the program with
 * LoanNotOngoing) and is skipped. After the liquidations it moves the protocol fees the banks' vaults hold to the
 * treasury (at most hourly per bank). Keeps no state between rounds but those times, so a restart resumes where
 * the chain is.
 */
export function createLiquidationKeeper(
  tx: TxContext,
  signer: KeyPairSigner,
  log: Pick<FastifyBaseLogger, "info" | "warn">,
): LiquidationKeeper {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<KeeperRound> | undefined;
  // The program writes only the current layout, so once a pass finds nothing old there is nothing to look for.
  let oldLayoutsRemain = true;
  const feesCollectedMs = new Map<string, number>();

  /**
   * Liquidates `loan`. In an auto-sell pool the builder sells into the best bid (or swap) that covers what is owed;
   * when that sale does not land (the bid was filled or the reserves moved in between), the keeper plans once more
   * from a fresh read, without that bid, and only then hands the collateral to the pool owner the classic way.
   */
  async function liquidate(
    loan: string,
    isDefi: boolean,
  ): Promise<{ signature: string; autoSell: boolean } | { error: string }> {
    const skipBids: string[] = [];
    for (let attempt = 0; attempt < AUTO_SELL_ATTEMPTS; attempt++) {
      const sale = await liquidateOnce(loan, isDefi, { skipBids });
      if ("signature" in sale || !sale.autoSell) return sale;
      log.warn({ loan, error: sale.error, attempt }, "keeper's auto-sell did not land");
      if (sale.bid !== undefined) skipBids.push(sale.bid);
    }
    log.warn({ loan }, "keeper's auto-sell did not land; liquidating the classic way");
    return liquidateOnce(loan, isDefi, { classic: true });
  }

  async function liquidateOnce(
    loan: string,
    isDefi: boolean,
    how: { classic?: boolean; skipBids?: string[] },
  ): Promise<{ signature: string; autoSell: boolean } | { error: string; autoSell: boolean; bid?: string }> {
    const plan = await liquidatePlan(tx, isDefi, { loan, payer: signer.address, ...how });
    const autoSell = plan.metadata?.autoSell === true;
    const bid = typeof plan.metadata?.bid === "string" ? plan.metadata.bid : undefined;
    try {
      return { signature: await sendAsKeeper(tx, signer, plan.groups[0]!), autoSell };
    } catch (error) {
      return {
        error: error instanceof Error ? error.message : String(error),
        autoSell,
        ...(bid === undefined ? {} : { bid }),
      };
    }
  }

  async function round(): Promise<KeeperRound> {
    const out: KeeperRound = {
      leader: false,
      liquidated: [],
      failed: [],
      migration: { migrated: [], failed: [] },
      fees: { collected: [], failed: [] },
    };
    out.leader = await tx.app.db.tryAdvisoryLock(KEEPER_LOCK_KEY);
    if (!out.leader) return out;
    // after a program upgrade, old-layout accounts first: the program refuses to liquidate them until then
    if (oldLayoutsRemain) {
      out.migration = await migrateOldAccounts(tx, signer, log);
      oldLayoutsRemain = out.migration.migrated.length > 0 || out.migration.failed.length > 0;
    }
    const [loans, now] = await Promise.all([tx.state.getOngoingLoans(), tx.clock.unixTime()]);
    const due = loans
      .filter(({ loan }) =>
        isLiquidatable({ createdAt: loan.createdAt, durationSeconds: loan.durationSeconds, now }),
      )
      .sort((a, b) => Number(a.loan.expiredAt - b.loan.expiredAt))
      .slice(0, MAX_LIQUIDATIONS_PER_ROUND);
    for (const { pubkey, loan } of due) {
      try {
        const r = await liquidate(pubkey, loan.isDefi);
        if ("signature" in r) {
          out.liquidated.push({ loan: pubkey, signature: r.signature, autoSold: r.autoSell });
          log.info(
            { loan: pubkey, pool: loan.pool, borrower: loan.borrower, signature: r.signature },
            r.autoSell
              ? "keeper liquidated a loan past expiry + grace; its collateral was sold into the bank"
              : "keeper liquidated a loan past expiry + grace; its collateral went to the pool owner",
          );
        } else {
          out.failed.push({ loan: pubkey, error: r.error });
          log.warn({ loan: pubkey, error: r.error }, "keeper could not liquidate a loan; next round retries");
        }
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        out.failed.push({ loan: pubkey, error: message });
        log.warn({ loan: pubkey, error: message }, "keeper could not liquidate a loan; next round retries");
      }
    }
    out.fees = await collectProtocolFees(tx, signer, log, feesCollectedMs);
    return out;
  }

  return {
    address: signer.address,
    runRound() {
      // one round at a time: a slow round is not overlapped by the next tick
      running ??= round().finally(() => {
        running = undefined;
      });
      return running;
    },
    start(intervalMs) {
      if (timer !== undefined) return;
      timer = setInterval(() => {
        void this.runRound().catch((error: unknown) =>
          log.warn({ err: error }, "keeper round failed; next round retries"),
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
