/* Local NFT market entrypoint: decodes the input and dispatches on the first data byte. */
#include "market.h"

/* BuyCnft: 13 accounts and a proof of up to BUBBLEGUM_MAX_PROOF nodes */
#define MAX_ACCOUNTS (13 + BUBBLEGUM_MAX_PROOF)

u64 entrypoint(const u8 *input) {
  SolAccountInfo ka[MAX_ACCOUNTS];
  SolParameters p;
  p.ka = ka;
  u64 r = sol_deserialize(input, &p, MAX_ACCOUNTS);
  if (r) return r;
  if (p.data_len < 1) return E_INVALID_INSTRUCTION;
  if (p.ka_num > MAX_ACCOUNTS) p.ka_num = MAX_ACCOUNTS;
  switch (p.data[0]) {
    case 0: return ix_list(&p);
    case 1: return ix_delist(&p);
    case 2: return ix_buy(&p);
    case 3: return ix_place_bid(&p);
    case 4: return ix_cancel_bid(&p);
    case 5: return ix_sell_to_bid(&p);
    case 6: return ix_list_core(&p);
    case 7: return ix_delist_core(&p);
    case 8: return ix_buy_core(&p);
    case 9: return ix_sell_core_to_bid(&p);
    case 10: return ix_list_pnft(&p);
    case 11: return ix_delist_pnft(&p);
    case 12: return ix_buy_pnft(&p);
    case 13: return ix_sell_pnft_to_bid(&p);
    case 14: return ix_list_cnft(&p);
    case 15: return ix_delist_cnft(&p);
    case 16: return ix_buy_cnft(&p);
    case 17: return ix_sell_cnft_to_bid(&p);
    default: return E_INVALID_INSTRUCTION;
  }
}
