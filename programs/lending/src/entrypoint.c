/* Cistern lending program entrypoint: decodes the input and dispatches on the instruction tag. */
#include "lending.h"

/* the largest instruction today: a pNFT TakeLoan from a private pool pulling from marginfi, 33 accounts */
#define MAX_ACCOUNTS 40

u64 entrypoint(const u8 *input) {
  SolAccountInfo ka[MAX_ACCOUNTS];
  SolParameters p;
  p.ka = ka;
  u64 r = sol_deserialize(input, &p, MAX_ACCOUNTS);
  if (r) return r;
  if (p.data_len < 1) return E_INVALID_INSTRUCTION;
  if (p.ka_num > MAX_ACCOUNTS) {
    if (p.data[0] == 24) return E_INVALID_INSTRUCTION; /* Migrate would leave the loans past the cap as they are */
    p.ka_num = MAX_ACCOUNTS;
  }
  switch (p.data[0]) {
    case 0: return ix_initialize_config(&p);
    case 1: return ix_update_config(&p);
    case 2: return ix_create_bank(&p);
    case 3: return ix_deposit(&p);
    case 4: return ix_withdraw(&p);
    case 5: return ix_create_pool(&p);
    case 6: return ix_update_pool(&p);
    case 7: return ix_close_pool(&p);
    case 8: return ix_take_loan(&p);
    case 9: return ix_repay(&p);
    case 10: return ix_extend(&p);
    case 11: return ix_liquidate(&p);
    case 12: return ix_set_venues(&p);
    case 13: return ix_market_sell(&p);
    case 14: return ix_liquidate_sell(&p);
    case 15: return ix_margin_swap(&p);
    case 16: return ix_set_delegation(&p);
    case 17: return ix_delegate(&p);
    case 18: return ix_withdraw_delegated(&p);
    case 19: return ix_refinance(&p);
    case 20: return ix_post_request(&p);
    case 21: return ix_cancel_request(&p);
    case 22: return ix_fill_request(&p);
    case 23: return ix_take_mortgage(&p);
    case 24: return ix_migrate(&p);
    case 25: return ix_collect_fees(&p);
    default: return E_INVALID_INSTRUCTION;
  }
}
