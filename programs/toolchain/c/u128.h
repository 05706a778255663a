/* 128-bit unsigned helpers. The upstream BPF backend rejects __int128 multiply/divide
 * ("__multi3/__udivti3 not supported"), so they are done by hand on a {lo, hi} pair.
 * Division is normalised long division in 32-bit digits (Hacker's Delight divlu / Knuth D),
 * using the VM's native 64-bit divide: a 128/64 divide is two hardware divides plus fix-ups.
 * Names here are a stable contract: add, never rename. */
#pragma once
#include "sol.h"
typedef struct { u64 lo, hi; } U128;

/* struct returns only compile when inlined (BPF has no aggregate returns), hence always_inline */
static inline __attribute__((always_inline)) U128 u128_from_u64(u64 v) { U128 r = {v, 0}; return r; }
static inline bool u128_is_zero(const U128 *a) { return (a->lo | a->hi) == 0; }
static inline bool u128_fits_u64(const U128 *a) { return a->hi == 0; }

/* -1 if a < b, 0 if equal, 1 if a > b */
static inline int u128_cmp(const U128 *a, const U128 *b) {
  if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
  if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
  return 0;
}

/* r = a + b; returns true on overflow (carry out of bit 127). r may alias a or b. */
static inline bool u128_add(const U128 *a, const U128 *b, U128 *r) {
  u64 lo = a->lo + b->lo;
  u64 c = lo < a->lo;
  u64 hi1 = a->hi + b->hi;
  bool of = hi1 < a->hi;
  u64 hi = hi1 + c;
  of = of || hi < hi1;
  r->lo = lo; r->hi = hi;
  return of;
}

/* r = a - b; returns true on underflow (a < b). r may alias a or b. */
static inline bool u128_sub(const U128 *a, const U128 *b, U128 *r) {
  u64 borrow = a->lo < b->lo;
  bool uf = a->hi < b->hi || (a->hi == b->hi && borrow);
  r->lo = a->lo - b->lo;
  r->hi = a->hi - b->hi - borrow;
  return uf;
}

/* r = a * b (64x64 -> 128, never overflows) */
static inline void u128_mul64(u64 a, u64 b, U128 *r) {
  if (((a | b) >> 32) == 0) { r->lo = a * b; r->hi = 0; return; } /* both below 2^32: one native multiply */
  u64 a0 = a & 0xffffffffULL, a1 = a >> 32, b0 = b & 0xffffffffULL, b1 = b >> 32;
  u64 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  u64 mid = (p00 >> 32) + (p01 & 0xffffffffULL) + (p10 & 0xffffffffULL);
  r->lo = (p00 & 0xffffffffULL) | (mid << 32);
  r->hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* r = a * b (128x64 -> 128); returns true on overflow. r may alias a. */
static inline bool u128_mul_u64(const U128 *a, u64 b, U128 *r) {
  if (a->hi == 0) { u128_mul64(a->lo, b, r); return false; }
  U128 lo, hi;
  u128_mul64(a->lo, b, &lo);
  u128_mul64(a->hi, b, &hi);
  u64 top = lo.hi + hi.lo;
  bool of = hi.hi != 0 || top < lo.hi;
  r->lo = lo.lo; r->hi = top;
  return of;
}

/* number of leading zero bits of a 64-bit value (64 for 0); branchy binary search, no libcall */
static inline u32 u64_nlz(u64 x) {
  if (x == 0) return 64;
  u32 n = 0;
  if ((x >> 32) == 0) { n += 32; x <<= 32; }
  if ((x >> 48) == 0) { n += 16; x <<= 16; }
  if ((x >> 56) == 0) { n += 8; x <<= 8; }
  if ((x >> 60) == 0) { n += 4; x <<= 4; }
  if ((x >> 62) == 0) { n += 2; x <<= 2; }
  if ((x >> 63) == 0) { n += 1; }
  return n;
}

/* (u1:u0) / v for u1 < v (quotient fits in 64 bits): Hacker's Delight divlu, 32-bit digits.
 * Caller guarantees v != 0 and u1 < v. */
static inline u64 u128_divlu_(u64 u1, u64 u0, u64 v, u64 *rem) {
  const u64 b = 1ULL << 32;
  u32 s = u64_nlz(v);
  v <<= s;
  u64 vn1 = v >> 32, vn0 = v & 0xffffffffULL;
  u64 un32 = s == 0 ? u1 : (u1 << s) | (u0 >> (64 - s));
  u64 un10 = u0 << s;
  u64 un1 = un10 >> 32, un0 = un10 & 0xffffffffULL;
  u64 q1 = un32 / vn1, rhat = un32 - q1 * vn1;
  while (q1 >= b || q1 * vn0 > ((rhat << 32) | un1)) {
    q1--; rhat += vn1;
    if (rhat >= b) break;
  }
  u64 un21 = (un32 << 32) + un1 - q1 * v;
  u64 q0 = un21 / vn1;
  rhat = un21 - q0 * vn1;
  while (q0 >= b || q0 * vn0 > ((rhat << 32) | un0)) {
    q0--; rhat += vn1;
    if (rhat >= b) break;
  }
  if (rem) *rem = ((un21 << 32) + un0 - q0 * v) >> s;
  return (q1 << 32) | q0;
}

/* q = n / d where the quotient must fit in 64 bits (n.hi < d); returns false on overflow or d == 0. */
static inline bool u128_div64(const U128 *n, u64 d, u64 *q, u64 *rem) {
  if (d == 0 || n->hi >= d) return false;
  if (n->hi == 0) { /* a 64-bit numerator: the VM's native divide */
    *q = n->lo / d;
    if (rem) *rem = n->lo - *q * d;
    return true;
  }
  *q = u128_divlu_(n->hi, n->lo, d, rem);
  return true;
}

/* q = n / d, r = n % d for any 128-bit n and non-zero 64-bit d; returns false if d == 0. */
static inline bool u128_divmod64(const U128 *n, u64 d, U128 *q, u64 *rem) {
  if (d == 0) return false;
  if (n->hi == 0) { /* a 64-bit numerator: the VM's native divide */
    q->lo = n->lo / d;
    q->hi = 0;
    *rem = n->lo - q->lo * d;
    return true;
  }
  u64 k = n->hi % d;
  u64 qhi = n->hi / d;
  q->lo = u128_divlu_(k, n->lo, d, rem);
  q->hi = qhi;
  return true;
}

/* q = n / d, r = n % d (full 128/128); returns false if d == 0. q and r may be NULL. */
static inline bool u128_divmod(const U128 *n, const U128 *d, U128 *q, U128 *r) {
  if (d->hi == 0) {
    U128 qq; u64 rr;
    if (!u128_divmod64(n, d->lo, &qq, &rr)) return false;
    if (q) *q = qq;
    if (r) { r->lo = rr; r->hi = 0; }
    return true;
  }
  /* d >= 2^64: the quotient fits in 64 bits. Estimate from the top 64 bits of the normalised
   * divisor, then correct by at most one (Hacker's Delight divdu). */
  u32 s = u64_nlz(d->hi);
  u64 v1 = s == 0 ? d->hi : (d->hi << s) | (d->lo >> (64 - s));
  u64 u1hi = n->hi >> 1, u1lo = (n->lo >> 1) | (n->hi << 63);
  u64 q1 = u128_divlu_(u1hi, u1lo, v1, NULL);
  u64 q0 = q1 >> (63 - s); /* undo the normalisation and the halving of n */
  if (q0 != 0) q0--;
  U128 prod, rem;
  u128_mul_u64(d, q0, &prod);
  u128_sub(n, &prod, &rem);
  if (u128_cmp(&rem, d) >= 0) { q0++; u128_sub(&rem, d, &rem); }
  if (q) { q->lo = q0; q->hi = 0; }
  if (r) *r = rem;
  return true;
}

/* q = ceil(n / d); returns false if d == 0. */
static inline bool u128_ceil_div(const U128 *n, const U128 *d, U128 *q) {
  U128 qq, rr;
  if (!u128_divmod(n, d, &qq, &rr)) return false;
  if (!u128_is_zero(&rr)) { U128 one = {1, 0}; u128_add(&qq, &one, &qq); }
  *q = qq;
  return true;
}

/* ceil(a / b) for 64-bit values; b must be non-zero. Never overflows. */
static inline u64 ceil_div_u64(u64 a, u64 b) { return a / b + (a % b != 0); }

/* floor(a * b / d) with a 128-bit intermediate; false on d == 0 or a result above u64. */
static inline bool mul_div_u64(u64 a, u64 b, u64 d, u64 *out) {
  U128 p; u128_mul64(a, b, &p); return u128_div64(&p, d, out, NULL);
}

/* ceil(a * b / d) with a 128-bit intermediate; false on d == 0 or a result above u64. */
static inline bool mul_div_ceil_u64(u64 a, u64 b, u64 d, u64 *out) {
  U128 p; u128_mul64(a, b, &p);
  u64 q, r;
  if (!u128_div64(&p, d, &q, &r)) return false;
  if (r != 0) { if (q == U64_MAX) return false; q++; }
  *out = q;
  return true;
}

/* signed 64-bit division truncating toward zero (clang-19 refuses sdiv for BPF); b must be non-zero */
static inline i64 sdiv64(i64 a, i64 b) {
  u64 ua = a < 0 ? -(u64)a : (u64)a, ub = b < 0 ? -(u64)b : (u64)b;
  u64 q = ua / ub;
  return ((a < 0) ^ (b < 0)) ? -(i64)q : (i64)q;
}

/* Rent-exempt minimum balance for an account of data_len bytes, computed exactly in integers:
 * floor((128 + data_len) * lamports_per_byte_year * exemption_threshold). Saturates at U64_MAX. */
static inline u64 rent_minimum_balance(const SolRent *rent, u64 data_len) {
  U128 bytes_years;
  u128_mul64(ACCOUNT_STORAGE_OVERHEAD + data_len, rent->lamports_per_byte_year, &bytes_years);
  u64 bits = rent->exemption_threshold_f64_bits;
  u64 exp_field = (bits >> 52) & 0x7ff;
  if (exp_field == 0 || (bits >> 63)) return 0; /* zero, subnormal or negative threshold */
  u64 mant = (bits & ((1ULL << 52) - 1)) | (1ULL << 52);
  i64 shift = (i64)exp_field - 1075; /* value = mant * 2^shift */
  while ((mant & 1) == 0 && shift < 0) { mant >>= 1; shift++; }
  U128 p;
  if (u128_mul_u64(&bytes_years, mant, &p)) return U64_MAX;
  if (shift < 0) {
    u64 sh = (u64)(-shift);
    if (sh >= 128) return 0;
    if (sh >= 64) { p.lo = p.hi >> (sh - 64); p.hi = 0; }
    else { p.lo = (p.lo >> sh) | (sh ? p.hi << (64 - sh) : 0); p.hi >>= sh; }
  } else {
    for (i64 i = 0; i < shift; i++) { if (p.hi >> 63) return U64_MAX; p.hi = (p.hi << 1) | (p.lo >> 63); p.lo <<= 1; }
  }
  return p.hi ? U64_MAX : p.lo;
}
