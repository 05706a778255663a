import { buildCalendar, getLoanCalendarEvents } from "@cistern/protocol";
import { formatMoney } from "../../kit/format.ts";
import type { LoanRowView } from "./loan-model.ts";

/**
 * A download of the loan's due date and grace end as a calendar file (.ics), with a reminder a day before each,
 * built in the browser from the loan as listed.
 */
export function CalendarLink({
  row,
  collateral,
  nowSeconds,
}: {
  row: LoanRowView;
  collateral: string;
  nowSeconds: number;
}) {
  const text = buildCalendar(
    getLoanCalendarEvents({
      pubkey: row.loan.pubkey,
      createdAt: row.loan.createdAt,
      duration: row.loan.duration,
      collateral,
      principal: formatMoney(row.loan.amount, row.loan.currency),
    }),
    nowSeconds,
  );
  return (
    <a
      className="button"
      href={`data:text/calendar;charset=utf-8,${encodeURIComponent(text)}`}
      download={`cistern-loan-${row.loan.pubkey.slice(0, 8)}.ics`}
      data-testid="loan-calendar"
    >
      Add to calendar
    </a>
  );
}
