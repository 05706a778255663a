/* Cistern's minimal Solana C SDK for stock clang-19 (-target bpfel -mcpu=v2) linked by
 * @cistern/toolchain into SBPF v0. Layouts follow the Solana C ABI used by the BPF loaders.
 * Names here are a stable contract: add, never rename. See ../README.md for the dialect's limits. */
#pragma once
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long i64;
typedef int i32;
typedef short i16;
typedef signed char i8;
typedef _Bool bool;
#define true 1
#define false 0
#define NULL ((void *)0)
#define U64_MAX 0xffffffffffffffffULL

/* ---- program results ----
 * Builtin program errors are (code << 32); custom errors are non-zero u32 values.
 * ERROR_CUSTOM(0) is encoded as the runtime's CUSTOM_ZERO (1 << 32) so it is never SUCCESS. */
#define SUCCESS 0ULL
#define TO_BUILTIN(n) ((u64)(n) << 32)
#define ERROR_CUSTOM(n) ((u32)(n) == 0 ? TO_BUILTIN(1) : (u64)(u32)(n))
#define ERROR_CUSTOM_ZERO TO_BUILTIN(1)
#define ERROR_INVALID_ARGUMENT TO_BUILTIN(2)
#define ERROR_INVALID_INSTRUCTION_DATA TO_BUILTIN(3)
#define ERROR_INVALID_ACCOUNT_DATA TO_BUILTIN(4)
#define ERROR_ACCOUNT_DATA_TOO_SMALL TO_BUILTIN(5)
#define ERROR_INSUFFICIENT_FUNDS TO_BUILTIN(6)
#define ERROR_INCORRECT_PROGRAM_ID TO_BUILTIN(7)
#define ERROR_MISSING_REQUIRED_SIGNATURES TO_BUILTIN(8)
#define ERROR_ACCOUNT_ALREADY_INITIALIZED TO_BUILTIN(9)
#define ERROR_UNINITIALIZED_ACCOUNT TO_BUILTIN(10)
#define ERROR_NOT_ENOUGH_ACCOUNT_KEYS TO_BUILTIN(11)
#define ERROR_ACCOUNT_BORROW_FAILED TO_BUILTIN(12)
#define ERROR_MAX_SEED_LENGTH_EXCEEDED TO_BUILTIN(13)
#define ERROR_INVALID_SEEDS TO_BUILTIN(14)
#define ERROR_ACCOUNT_NOT_RENT_EXEMPT TO_BUILTIN(16)
#define ERROR_ILLEGAL_OWNER TO_BUILTIN(18)
#define ERROR_ARITHMETIC_OVERFLOW TO_BUILTIN(25)
#define ERROR_IMMUTABLE TO_BUILTIN(26)
#define ERROR_INCORRECT_AUTHORITY TO_BUILTIN(27)

#define SIZE_PUBKEY 32
typedef struct { u8 x[SIZE_PUBKEY]; } SolPubkey;

/* Layout must match the runtime's C ABI (56 bytes). */
typedef struct {
  SolPubkey *key;
  u64 *lamports;
  u64 data_len;
  u8 *data;
  SolPubkey *owner;
  u64 rent_epoch;
  bool is_signer;
  bool is_writable;
  bool executable;
} SolAccountInfo;

typedef struct { SolPubkey *pubkey; bool is_writable; bool is_signer; } SolAccountMeta;
typedef struct {
  SolPubkey *program_id;
  SolAccountMeta *accounts;
  u64 account_len;
  u8 *data;
  u64 data_len;
} SolInstruction;
typedef struct { const u8 *addr; u64 len; } SolSignerSeed;
typedef struct { const SolSignerSeed *addr; u64 len; } SolSignerSeeds;
/* A byte slice, as taken by sol_log_data and the hash syscalls. */
typedef struct { const u8 *addr; u64 len; } SolBytes;

/* Clock sysvar (40 bytes); unix_timestamp is epoch seconds. */
typedef struct {
  u64 slot;
  i64 epoch_start_timestamp;
  u64 epoch;
  u64 leader_schedule_epoch;
  i64 unix_timestamp;
} SolClock;

/* Rent sysvar (24 bytes with padding). exemption_threshold is an IEEE-754 f64 kept as raw bits
 * (the BPF target has no floating point); see rent_minimum_balance() in u128.h. */
typedef struct {
  u64 lamports_per_byte_year;
  u64 exemption_threshold_f64_bits;
  u8 burn_percent;
} SolRent;
#define ACCOUNT_STORAGE_OVERHEAD 128ULL

#define MAX_RETURN_DATA 1024
#define MAX_SEEDS 16
#define MAX_SEED_LEN 32
#define SHA256_RESULT_LEN 32
/* Heap region: 32 KiB of scratch memory at this VM address (bump-allocate from it yourself). */
#define HEAP_START_ADDRESS 0x300000000ULL
#define HEAP_LENGTH (32 * 1024)

/* ---- syscalls (resolved by name hash at load time) ---- */
void sol_log_(const char *msg, u64 len);
void sol_log_64_(u64, u64, u64, u64, u64);
void sol_log_pubkey(const SolPubkey *);
void sol_log_compute_units_(void);
void sol_log_data(const SolBytes *fields, u64 n_fields);
void sol_panic_(const char *file, u64 len, u64 line, u64 column);
u64 sol_invoke_signed_c(const SolInstruction *ix, const SolAccountInfo *infos, int n_infos,
                        const SolSignerSeeds *signers, int n_signers);
u64 sol_create_program_address(const SolSignerSeed *seeds, int n_seeds, const SolPubkey *program_id, SolPubkey *out);
u64 sol_try_find_program_address(const SolSignerSeed *seeds, int n_seeds, const SolPubkey *program_id,
                                 SolPubkey *out, u8 *bump);
u64 sol_get_clock_sysvar(void *out);
u64 sol_get_rent_sysvar(void *out);
void sol_set_return_data(const u8 *data, u64 len);
/* Copies up to len bytes of the last return data into data and its setter into program_id;
 * returns the full length of the return data (0 if none). */
u64 sol_get_return_data(u8 *data, u64 len, SolPubkey *program_id);
u64 sol_sha256(const SolBytes *bytes, int n_bytes, u8 *result);
u64 sol_keccak256(const SolBytes *bytes, int n_bytes, u8 *result);
/* Note: sol_remaining_compute_units is feature-gated off in the current runtime (litesvm 1.5 fails with
 * "unsupported BPF instruction"); use sol_log_compute_units_() to read CU in logs instead. */
u64 sol_get_stack_height(void);
void sol_memcpy_(void *dst, const void *src, u64 n);
void sol_memset_(void *dst, u8 c, u64 n);
void sol_memmove_(void *dst, const void *src, u64 n);
void sol_memcmp_(const void *a, const void *b, u64 n, int *result);

/* libc functions the compiler may call implicitly (struct copies, zeroing); defined in libsol.c */
void *memcpy(void *dst, const void *src, u64 n);
void *memset(void *dst, int c, u64 n);
void *memmove(void *dst, const void *src, u64 n);
int memcmp(const void *a, const void *b, u64 n);

#define sol_log(s) sol_log_((s), sizeof(s) - 1)
#define sol_assert(c) do { if (!(c)) sol_panic_(__FILE__, sizeof(__FILE__) - 1, __LINE__, 0); } while (0)

static inline bool pubkey_eq(const SolPubkey *a, const SolPubkey *b) {
  const u64 *x = (const u64 *)a, *y = (const u64 *)b;
  return x[0] == y[0] && x[1] == y[1] && x[2] == y[2] && x[3] == y[3];
}

/* Whether `expected` is the program address of `seeds` (bump included) under `program_id`: the SHA-256 of the
 * seeds, the program id and "ProgramDerivedAddress", as sol_create_program_address computes it, for about a tenth
 * of its compute units. It does not test that the address is off the curve; where it checks an account that
 * needs no test: an account owned by the program whose address this is was created at that address by an invoke
 * signed with these very seeds (the runtime refuses seeds whose address is on the curve), and an account created
 * in this instruction is created by such an invoke. Up to 6 seeds of at most 32 bytes. */
static inline bool pda_matches(const SolSignerSeed *seeds, int n, const SolPubkey *program_id,
                               const SolPubkey *expected) {
  static const u8 MARKER[] = "ProgramDerivedAddress";
  if (n > 6) return false;
  SolBytes parts[8];
  for (int i = 0; i < n; i++) {
    if (seeds[i].len > 32) return false;
    parts[i].addr = seeds[i].addr;
    parts[i].len = seeds[i].len;
  }
  parts[n].addr = program_id->x;
  parts[n].len = 32;
  parts[n + 1].addr = MARKER;
  parts[n + 1].len = sizeof(MARKER) - 1;
  SolPubkey hash;
  sol_sha256(parts, n + 2, hash.x);
  return pubkey_eq(&hash, expected);
}

/* Little-endian loads/stores at any alignment (instruction data is unaligned). */
static inline u64 sol_read_u64(const u8 *p) { u64 v; sol_memcpy_(&v, p, 8); return v; }
static inline void sol_write_u64(u8 *p, u64 v) { sol_memcpy_(p, &v, 8); }

/* ---- input deserialization (aligned BPF loader format) ---- */
#define MAX_PERMITTED_DATA_INCREASE (10 * 1024)
#define NON_DUP_MARKER 0xff

typedef struct {
  SolAccountInfo *ka;   /* caller-provided array of ka_cap entries */
  u64 ka_num;           /* number of accounts in the instruction (may exceed ka_cap) */
  const u8 *data;
  u64 data_len;
  const SolPubkey *program_id;
} SolParameters;

/* Fills params from the loader's input region. Accounts beyond ka_cap are skipped (not stored);
 * check params->ka_num against what you index. */
static inline u64 sol_deserialize(const u8 *input, SolParameters *params, u64 ka_cap) {
  if (!input || !params) return ERROR_INVALID_ARGUMENT;
  params->ka_num = *(const u64 *)input;
  input += sizeof(u64);
  for (u64 i = 0; i < params->ka_num; i++) {
    u8 dup = input[0];
    input += 1;
    if (dup == NON_DUP_MARKER) {
      SolAccountInfo tmp, *ai = i < ka_cap ? &params->ka[i] : &tmp;
      ai->is_signer = input[0];
      ai->is_writable = input[1];
      ai->executable = input[2];
      input += 3 + 4; /* flags + 4 bytes padding */
      ai->key = (SolPubkey *)input; input += 32;
      ai->owner = (SolPubkey *)input; input += 32;
      ai->lamports = (u64 *)input; input += 8;
      ai->data_len = *(const u64 *)input; input += 8;
      ai->data = (u8 *)input;
      input += ai->data_len + MAX_PERMITTED_DATA_INCREASE;
      input = (const u8 *)(((u64)input + 7) & ~7ULL);
      ai->rent_epoch = *(const u64 *)input; input += 8;
    } else {
      if (i < ka_cap && dup < ka_cap) params->ka[i] = params->ka[dup];
      input += 7;
    }
  }
  params->data_len = *(const u64 *)input; input += 8;
  params->data = input; input += params->data_len;
  params->program_id = (const SolPubkey *)input;
  return SUCCESS;
}
