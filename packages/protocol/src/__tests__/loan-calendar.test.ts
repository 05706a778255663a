import { describe, expect, it } from "vitest";
import { buildCalendar, getLoanCalendarEvents } from "../loan-calendar.ts";

describe("loan calendar (.ics)", () => {
  const loan = {
    pubkey: "Loan1111111111111111111111111111111111111111",
    createdAt: Date.UTC(2026, 10, 25, 9, 30) / 1000,
    duration: 7 * 86_400,
    collateral: "Cistern Otters #12",
    principal: "50 USDC",
  };

  it("has the due date and the grace end (1 h per loan day: 7 h for a 7-day loan)", () => {
    const [due, grace] = getLoanCalendarEvents(loan);
    expect(due!.startSeconds).toBe(loan.createdAt + 7 * 86_400);
    expect(grace!.startSeconds - due!.startSeconds).toBe(7 * 3600);
  });

  it("writes RFC 5545 lines: UTC times, escaped text, a reminder a day before", () => {
    const text = buildCalendar(getLoanCalendarEvents(loan), loan.createdAt);
    const lines = text.split("\r\n");
    expect(lines[0]).toBe("BEGIN:VCALENDAR");
    expect(lines).toContain("DTSTART:20261202T093000Z");
    expect(lines).toContain("DTSTART:20261202T163000Z");
    expect(lines).toContain("TRIGGER:-PT24H");
    expect(text).toContain("SUMMARY:Cistern loan due: 50 USDC against Cistern Otters #12");
    expect(text).toContain("Repay before this time to keep Cistern Otters #12. After it\\, late interest");
    expect(text.endsWith("END:VCALENDAR\r\n")).toBe(true);
    expect(lines.filter((l) => l === "BEGIN:VEVENT")).toHaveLength(2);
  });
});
