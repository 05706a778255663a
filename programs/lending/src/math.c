/* Protocol maths; must equal packages/protocol (interest, owed interest, fee, grace). Debts round up. */
#include "lending.h"

/* ceil(a * b * c / d) with a 128-bit intermediate; false on overflow */
static bool mul3_ceil_div(u64 a, u64 b, u64 c, u64 d, u64 *out) {
  U128 p;
  u128_mul64(a, b, &p);
  if (u128_mul_u64(&p, c, &p)) return false;
  U128 q;
  u64 rem;
  if (!u128_divmod64(&p, d, &q, &rem) || q.hi != 0) return false;
  if (rem != 0) {
    if (q.lo == U64_MAX) return false;
    q.lo++;
  }
  *out = q.lo;
  return true;
}

bool total_interest(u64 apr_bps, u64 principal, u64 duration, u64 *out) {
  return mul3_ceil_div(apr_bps, principal, ceil_div_u64(duration, HOUR), INTEREST_DENOMINATOR, out);
}

bool owed_interest(const Loan *loan, i64 now, u64 *out) {
  u64 total = loan->interest;
  if (now <= loan->expired_at) {
    u64 elapsed = now > loan->created_at ? (u64)(now - loan->created_at) : 0;
    u64 accrued, minimum;
    if (!mul3_ceil_div(loan->apr_bps, loan->principal, elapsed / HOUR + 1, INTEREST_DENOMINATOR, &accrued)) return false;
    if (!mul3_ceil_div(total, MIN_INTEREST_BPS, 1, BPS, &minimum)) return false;
    u64 owed = accrued > minimum ? accrued : minimum;
    *out = owed < total ? owed : total;
    return true;
  }
  u64 overdue_hours = ceil_div_u64((u64)(now - loan->expired_at), HOUR);
  u64 extra;
  if (!mul3_ceil_div(2 * (u64)loan->apr_bps, loan->principal, overdue_hours, INTEREST_DENOMINATOR, &extra)) return false;
  return add_ok(total, extra, out);
}

u64 protocol_fee(u64 owed, u64 fee_bps) {
  u64 fee = 0;
  mul_div_u64(owed, fee_bps, BPS, &fee); /* fee_bps <= 10000, so the result always fits */
  return fee;
}

u64 grace_seconds(u64 duration) {
  u64 days = duration / DAY;
  return (days < MAX_GRACE_HOURS ? days : MAX_GRACE_HOURS) * HOUR;
}

bool usd_value(u64 amount, u64 price_micro_usd, u8 decimals, u64 *out) {
  if (decimals > 19) return false;
  u64 scale = 1;
  for (u8 i = 0; i < decimals; i++) scale *= 10;
  U128 p, q;
  u128_mul64(amount, price_micro_usd, &p);
  u64 rem;
  if (!u128_divmod64(&p, scale, &q, &rem) || q.hi != 0) return false;
  *out = q.lo;
  return true;
}

bool mul_le(u64 a, u64 b, u64 c, u64 d) {
  U128 l, r;
  u128_mul64(a, b, &l);
  u128_mul64(c, d, &r);
  return u128_cmp(&l, &r) <= 0;
}
