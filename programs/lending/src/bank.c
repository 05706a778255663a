/* CreateBank (2), Deposit (3), Withdraw (4), CollectFees (25). */
#include "lending.h"

static const u8 BANK_SEED[] = "bank";
static const u8 VAULT_SEED[] = "vault";

/* accounts: 0 owner (s, w), 1 bank PDA (w), 2 vault PDA (w), 3 mint, 4 token program, 5 system program.
 * data: tag, bank bump, vault bump */
u64 ix_create_bank(const SolParameters *p) {
  if (p->data_len != 3) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 6) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *owner = &p->ka[0], *bank = &p->ka[1], *vault = &p->ka[2], *mint = &p->ka[3];
  const SolAccountInfo *token = &p->ka[4], *sys = &p->ka[5];
  u64 r = check_signer(owner, true);
  if (r) return r;
  if ((r = check_token_program(token))) return r;
  if ((r = check_system_program(sys))) return r;
  u8 decimals;
  if ((r = check_mint(mint, &decimals, NULL))) return r;
  u8 bump = p->data[1], vault_bump = p->data[2];
  SolSignerSeed bank_seeds[4] = {
    {BANK_SEED, sizeof(BANK_SEED) - 1}, {owner->key->x, 32}, {mint->key->x, 32}, {&bump, 1}};
  /* one bank per owner and mint: its canonical address */
  if ((r = verify_canonical_pda(bank_seeds, 3, p->program_id, bank->key, bump))) return r;
  SolSignerSeed vault_seeds[3] = {{VAULT_SEED, sizeof(VAULT_SEED) - 1}, {bank->key->x, 32}, {&vault_bump, 1}};
  if ((r = verify_pda(vault_seeds, 3, p->program_id, vault->key))) return r;

  SolSignerSeeds bank_signer = {bank_seeds, 4};
  CreateAccountArgs ca = {owner, bank, sys, p->program_id, sizeof(Bank), &bank_signer};
  if ((r = create_pda_account(&ca))) return r;
  SolSignerSeeds vault_signer = {vault_seeds, 3};
  TokenAccountArgs ta = {owner, vault, mint, sys, token, bank->key, &vault_signer};
  if ((r = create_token_account(&ta))) return r;

  SolClock clock;
  if ((r = clock_now(&clock))) return r;
  Bank *b = (Bank *)bank->data;
  b->tag = TAG_BANK;
  b->version = ACCOUNT_VERSION;
  b->bump = bump;
  b->vault_bump = vault_bump;
  b->decimals = decimals;
  copy_key(&b->owner, owner->key);
  copy_key(&b->mint, mint->key);
  copy_key(&b->vault, vault->key);
  b->created_at = clock.unix_timestamp;
  return SUCCESS;
}

/* shared checks of Deposit / Withdraw: 0 owner (s), 1 bank (w), 2 vault (w), 3 token account (w), 4 token program */
static u64 check_bank_transfer(const SolParameters *p, u64 *amount) {
  if (p->data_len != 9) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 5) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *owner = &p->ka[0], *bank = &p->ka[1], *vault = &p->ka[2];
  u64 r = check_signer(owner, false);
  if (r) return r;
  if ((r = check_state(bank, p->program_id, TAG_BANK, sizeof(Bank), true))) return r;
  const Bank *b = (const Bank *)bank->data;
  if (!pubkey_eq(&b->owner, owner->key)) return E_UNAUTHORIZED;
  if (!pubkey_eq(&b->vault, vault->key)) return E_ACCOUNT_MISMATCH;
  if (!vault->is_writable) return E_NOT_WRITABLE;
  if ((r = check_token_program(&p->ka[4]))) return r;
  if ((r = check_token_account(&p->ka[3], &b->mint, NULL))) return r;
  *amount = rd64(p->data + 1);
  return *amount == 0 ? E_INVALID_AMOUNT : SUCCESS;
}

u64 ix_deposit(const SolParameters *p) {
  u64 amount;
  u64 r = check_bank_transfer(p, &amount);
  if (r) return r;
  Bank *b = (Bank *)p->ka[1].data;
  u64 total, available;
  if (!add_ok(b->total, amount, &total) || !add_ok(b->available, amount, &available)) return E_MATH_OVERFLOW;
  TransferArgs t = {&p->ka[4], &p->ka[3], &p->ka[2], &p->ka[0], amount, NULL};
  if ((r = token_transfer(&t))) return r;
  SolClock clock;
  if ((r = clock_now(&clock))) return r;
  b->total = total;
  b->available = available;
  b->deposited_at = clock.unix_timestamp;
  return SUCCESS;
}

u64 ix_withdraw(const SolParameters *p) {
  u64 amount;
  u64 r = check_bank_transfer(p, &amount);
  if (r) return r;
  Bank *b = (Bank *)p->ka[1].data;
  u64 total, available;
  if (!sub_ok(b->available, amount, &available)) return E_INSUFFICIENT_LIQUIDITY;
  if (!sub_ok(b->total, amount, &total)) return E_INCONSISTENT_COUNTERS;
  SolSignerSeed seeds[4] = {
    {BANK_SEED, sizeof(BANK_SEED) - 1}, {b->owner.x, 32}, {b->mint.x, 32}, {&b->bump, 1}};
  SolSignerSeeds signer = {seeds, 4};
  TransferArgs t = {&p->ka[4], &p->ka[2], &p->ka[3], &p->ka[1], amount, &signer};
  if ((r = token_transfer(&t))) return r;
  SolClock clock;
  if ((r = clock_now(&clock))) return r;
  b->total = total;
  b->available = available;
  b->withdrawn_at = clock.unix_timestamp;
  return SUCCESS;
}

/* Moves the protocol fees a bank's vault holds for the treasury (fees_owed) to the treasury's token account of the
 * bank's currency. Anyone may send it: the destination is the config's treasury, the amount the bank's books.
 * accounts: 0 config, 1 bank (w), 2 vault (w), 3 treasury currency token account (w), 4 token program. data: tag */
u64 ix_collect_fees(const SolParameters *p) {
  if (p->data_len != 1) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 5) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *config = &p->ka[0], *bank = &p->ka[1], *vault = &p->ka[2], *treasury = &p->ka[3];
  const SolAccountInfo *token = &p->ka[4];
  u64 r = check_config(config, p->program_id, false);
  if (r) return r;
  if ((r = check_state(bank, p->program_id, TAG_BANK, sizeof(Bank), true))) return r;
  Bank *b = (Bank *)bank->data;
  if (!pubkey_eq(&b->vault, vault->key)) return E_ACCOUNT_MISMATCH;
  if (!vault->is_writable) return E_NOT_WRITABLE;
  if ((r = check_token_program(token))) return r;
  const Config *cfg = (const Config *)config->data;
  if ((r = check_token_account(treasury, &b->mint, NULL))) return r;
  if (!pubkey_eq((const SolPubkey *)(treasury->data + 32), &cfg->treasury)) return E_INVALID_TREASURY;
  if (b->fees_owed == 0) return E_NO_FEES_OWED;
  SolSignerSeed seeds[4] = {
    {BANK_SEED, sizeof(BANK_SEED) - 1}, {b->owner.x, 32}, {b->mint.x, 32}, {&b->bump, 1}};
  SolSignerSeeds signer = {seeds, 4};
  TransferArgs t = {token, vault, treasury, bank, b->fees_owed, &signer};
  if ((r = token_transfer(&t))) return r;
  b->fees_owed = 0;
  return SUCCESS;
}
