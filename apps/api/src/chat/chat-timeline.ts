import {
  formatBps,
  formatDateTime,
  formatDuration,
  formatMoney,
  isLiquidatable,
  isNearExpiry,
  LOAN_STATUS_ONGOING,
  NEAR_EXPIRY_WINDOW_SECONDS,
} from "@cistern/protocol";
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import type { Database } from "../db/database.ts";
import { readBigInt } from "../db/database.ts";
import { ensureLoanRoom, postLoanSystemMessages, postSystemMessage } from "./chat-store.ts";

/** Advisory lock key: one process writes the timeline at a time (posting is idempotent anyway). */
export const CHAT_TIMELINE_LOCK_KEY = 7_401_005;
const BATCH = 500;

interface LoanFacts {
  pubkey: string;
  borrower: string;
  currency: string;
  principal: unknown;
  repaid_amount: unknown;
  apr_bps: number;
  duration: unknown;
  created_at: unknown;
  expired_at: unknown;
  status: string;
}

/** The system message text of a loan event (amounts in currency units, dates in UTC). */
export function describeLoanEvent(
  kind: "taken" | "repaid" | "extended" | "refinanced" | "sold" | "liquidated" | "due-soon" | "liquidatable",
  loan: LoanFacts,
): string {
  const due = formatDateTime(Number(loan.expired_at));
  switch (kind) {
    case "taken":
      return (
        `Loan taken: ${formatMoney(readBigInt(loan.principal), loan.currency)} for ` +
        `${formatDuration(Number(loan.duration))} at ${formatBps(loan.apr_bps)} APR. Due ${due}.`
      );
    case "repaid":
      return `Loan repaid: ${formatMoney(readBigInt(loan.repaid_amount), loan.currency, "up")} paid back; the collateral is back with the borrower.`;
    case "extended":
      return "Loan extended: it was repaid into a new loan with new terms.";
    case "refinanced":
      return "Loan refinanced: another offer paid it off into a new loan with new terms.";
    case "sold":
      return "Collateral sold: the loan was repaid from the sale.";
    case "liquidated":
      return "Loan liquidated: the collateral went to the lender.";
    case "due-soon":
      return `Due in less than 24 hours: repay by ${due} to keep the collateral.`;
    case "liquidatable":
      return "Past due and past the grace period: the lender may now liquidate this loan.";
  }
}

/** One pass of the timeline; what it posted. */
export interface TimelineRound {
  leader: boolean;
  posted: number;
}

/**
 * Turns loan events into system messages in each loan's room, so the room is the loan's timeline: indexed
 * events (taken, repaid, extended, sold, liquidated; loan_activity from a persisted cursor) and moments of the
 * chain's clock (due within 24 hours, liquidatable). Each is posted once per room (unique system key), so a
 * restart or a second process never repeats one.
 */
export function createChatTimeline(
  db: Database,
  chainNow: () => Promise<number>,
  log: FastifyBaseLogger,
): { round(): Promise<TimelineRound>; start(everyMs: number): void; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();

  async function post(loan: LoanFacts, kind: Parameters<typeof describeLoanEvent>[0]): Promise<boolean> {
    const room = await ensureLoanRoom(db, loan.pubkey);
    if (room === null) return false;
    const posted = await postSystemMessage(db, room, kind, describeLoanEvent(kind, loan), Date.now());
    return posted !== null;
  }

  async function round(): Promise<TimelineRound> {
    if (!(await db.tryAdvisoryLock(CHAT_TIMELINE_LOCK_KEY))) return { leader: false, posted: 0 };
    let posted = 0;
    const [cursor] = await db.query<{ last_activity_id: unknown }>(
      "SELECT last_activity_id FROM chat_timeline_cursor WHERE id = 1",
    );
    let last = Number(cursor?.last_activity_id ?? 0);
    const events = await db.query<LoanFacts & { id: unknown; kind: string }>(
      `SELECT a.id, a.kind, l.pubkey, l.borrower, l.currency, l.principal, l.repaid_amount, l.apr_bps, l.duration,
         l.created_at, l.expired_at, l.status
       FROM loan_activity a JOIN loans l ON l.pubkey = a.loan WHERE a.id > $1 ORDER BY a.id LIMIT ${BATCH}`,
      [last],
    );
    // the round's events in one transaction (three statements), not four statements each
    posted += (
      await postLoanSystemMessages(
        db,
        events.map((e) => ({
          loan: e.pubkey,
          systemKey: e.kind,
          text: describeLoanEvent(e.kind as "taken", e),
        })),
        Date.now(),
      )
    ).length;
    if (events.length > 0) last = Number(events.at(-1)!.id);
    if (events.length > 0)
      await db.query(
        `INSERT INTO chat_timeline_cursor (id, last_activity_id) VALUES (1, $1)
         ON CONFLICT (id) DO UPDATE SET last_activity_id = EXCLUDED.last_activity_id`,
        [last],
      );

    const now = Math.floor(await chainNow());
    // Ongoing loans due within a day or already past due, without their message yet; the rules decide.
    const ongoing = await db.query<LoanFacts & { has_due: boolean; has_liq: boolean }>(
      `SELECT l.pubkey, l.borrower, l.currency, l.principal, l.repaid_amount, l.apr_bps, l.duration, l.created_at,
         l.expired_at, l.status,
         EXISTS (SELECT 1 FROM chat_messages m WHERE m.room_id = 'loan:' || l.pubkey AND m.system_key = 'due-soon') AS has_due,
         EXISTS (SELECT 1 FROM chat_messages m WHERE m.room_id = 'loan:' || l.pubkey AND m.system_key = 'liquidatable') AS has_liq
       FROM loans l WHERE l.status = $1 AND l.expired_at <= $2
         AND NOT EXISTS (SELECT 1 FROM chat_messages m WHERE m.room_id = 'loan:' || l.pubkey AND m.system_key = 'liquidatable')
       ORDER BY l.expired_at LIMIT ${BATCH}`,
      [LOAN_STATUS_ONGOING, now + NEAR_EXPIRY_WINDOW_SECONDS],
    );
    for (const loan of ongoing) {
      const facts = { createdAt: Number(loan.created_at), durationSeconds: Number(loan.duration), now };
      if (isLiquidatable(facts)) {
        if (!loan.has_liq && (await post(loan, "liquidatable"))) posted += 1;
      } else if (
        !loan.has_due &&
        isNearExpiry({ ...loan, expiredAt: Number(loan.expired_at) }, loan.borrower, now)
      ) {
        if (await post(loan, "due-soon")) posted += 1;
      }
    }
    if (posted > 0) log.debug({ posted }, "chat timeline posted loan events");
    return { leader: true, posted };
  }

  return {
    round,
    start(everyMs) {
      timer = setInterval(() => {
        running = running
          .then(round)
          .catch((error) => log.warn({ err: error }, "chat timeline round failed"));
      }, everyMs);
      timer.unref();
    },
    stop() {
      if (timer !== undefined) clearInterval(timer);
    },
  };
}

/** How often loan events become system messages in the loans' rooms. */
export const CHAT_TIMELINE_INTERVAL_MS = 2000;

/** Starts the timeline on a running app (the indexer fills what it reads) and stops it with the app. */
export function startChatTimeline(app: FastifyInstance, everyMs = CHAT_TIMELINE_INTERVAL_MS): void {
  const timeline = createChatTimeline(app.cistern.db, app.cistern.chainNow, app.log);
  timeline.start(everyMs);
  app.addHook("onClose", async () => timeline.stop());
}
