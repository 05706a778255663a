/**
 * Calendar files (RFC 5545 iCalendar) for loans: each loan's due date and the end of its grace period, so a
 * borrower's calendar warns before the collateral can be claimed. Used by the web app's per-loan download
 * (and meant for the API's per-wallet feed).
 */
import { computeGraceSeconds } from "./loan-timing.ts";

/** One calendar event: an instant (epoch seconds) with a title and a description. */
export interface CalendarEvent {
  uid: string;
  startSeconds: number;
  title: string;
  description: string;
}

/** A loan as the calendar needs it. */
export interface CalendarLoan {
  pubkey: string;
  createdAt: number;
  /** Seconds. */
  duration: number;
  /** What is pledged, in words ("Cistern Otters #12", "1,000 JUP"). */
  collateral: string;
  /** What is borrowed, in words ("50 USDC"). */
  principal: string;
}

/** The due date and the grace end of a loan. */
export function getLoanCalendarEvents(loan: CalendarLoan): CalendarEvent[] {
  const due = loan.createdAt + loan.duration;
  const graceEnd = due + computeGraceSeconds(loan.duration);
  return [
    {
      uid: `${loan.pubkey}-due@cistern`,
      startSeconds: due,
      title: `Cistern loan due: ${loan.principal} against ${loan.collateral}`,
      description: `Repay before this time to keep ${loan.collateral}. After it, late interest runs until the grace period ends.`,
    },
    {
      uid: `${loan.pubkey}-grace-end@cistern`,
      startSeconds: graceEnd,
      title: `Cistern grace ends: ${loan.collateral} can be claimed`,
      description: `If the loan of ${loan.principal} is still unpaid, the lender may claim ${loan.collateral} from this time.`,
    },
  ];
}

/** "20261125T093000Z" */
function icsTime(epochSeconds: number): string {
  return `${new Date(epochSeconds * 1000).toISOString().replace(/[-:]/g, "").slice(0, 15)}Z`;
}

/** RFC 5545 text escaping: backslash, semicolon, comma and newlines. */
function icsText(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/;/g, "\\;").replace(/,/g, "\\,").replace(/\r?\n/g, "\\n");
}

/** A VCALENDAR with one 15-minute VEVENT per event (CRLF lines, as RFC 5545 requires), stamped at `nowSeconds`. */
export function buildCalendar(events: readonly CalendarEvent[], nowSeconds: number): string {
  const lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Cistern//Loans//EN", "CALSCALE:GREGORIAN"];
  for (const e of events) {
    lines.push(
      "BEGIN:VEVENT",
      `UID:${icsText(e.uid)}`,
      `DTSTAMP:${icsTime(nowSeconds)}`,
      `DTSTART:${icsTime(e.startSeconds)}`,
      `DTEND:${icsTime(e.startSeconds + 900)}`,
      `SUMMARY:${icsText(e.title)}`,
      `DESCRIPTION:${icsText(e.description)}`,
      "BEGIN:VALARM",
      "ACTION:DISPLAY",
      "TRIGGER:-PT24H",
      `DESCRIPTION:${icsText(e.title)}`,
      "END:VALARM",
      "END:VEVENT",
    );
  }
  lines.push("END:VCALENDAR");
  return `${lines.join("\r\n")}\r\n`;
}
