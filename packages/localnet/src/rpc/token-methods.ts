import { encodeAccount, parseAccountConfig } from "../account-encoding.ts";
import { decodeAddress, encodeBase58 } from "../base58.ts";
import { invalidParams } from "../errors.ts";
import {
  decodeMint,
  decodeTokenAccount,
  isMintData,
  isTokenAccountData,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  uiTokenAmount,
} from "../token-layout.ts";
import { compileFilters, scanProgramAccounts } from "./account-methods.ts";
import { type RpcContext, type RpcHandler, withContext } from "./context.ts";
import { asParams, config, str } from "./params.ts";

function readMint(ctx: RpcContext, mint: string): { program: string; decimals: number; supply: bigint } {
  const acct = ctx.chain.svm.getAccount(decodeAddress(mint));
  const owner = acct ? encodeBase58(acct.owner()) : "";
  if (!acct || (owner !== TOKEN_PROGRAM && owner !== TOKEN_2022_PROGRAM) || !isMintData(acct.data(), owner))
    throw invalidParams("Invalid param: not a Token mint");
  const m = decodeMint(acct.data());
  return { program: owner, decimals: m.decimals, supply: m.supply };
}

function readTokenAccount(ctx: RpcContext, address: string) {
  const acct = ctx.chain.svm.getAccount(decodeAddress(address));
  const owner = acct ? encodeBase58(acct.owner()) : "";
  if (
    !acct ||
    (owner !== TOKEN_PROGRAM && owner !== TOKEN_2022_PROGRAM) ||
    !isTokenAccountData(acct.data(), owner)
  )
    throw invalidParams("Invalid param: not a Token account");
  return decodeTokenAccount(acct.data());
}

/** Token accounts whose `field` (owner at 32, delegate at 76) is `who`, filtered by mint or program. */
function tokenAccountsBy(params: unknown[], ctx: RpcContext, ownerOffset: 32 | 76) {
  const p = asParams(params);
  const who = decodeAddress(str(p, 0, "address"));
  const filter = p[1] as { mint?: unknown; programId?: unknown } | undefined;
  if (!filter || typeof filter !== "object")
    throw invalidParams("Invalid params: missing mint or programId filter");
  let programs: string[];
  let mint: Uint8Array | null = null;
  if (typeof filter.mint === "string") {
    programs = [readMint(ctx, filter.mint).program];
    mint = decodeAddress(filter.mint);
  } else if (typeof filter.programId === "string") {
    if (filter.programId !== TOKEN_PROGRAM && filter.programId !== TOKEN_2022_PROGRAM)
      throw invalidParams(`Invalid param: unrecognized Token program id`);
    programs = [filter.programId];
  } else throw invalidParams("Invalid params: expected {mint} or {programId}");
  const c = config(p, 2);
  const cfg = parseAccountConfig(c);
  const filters = [...compileFilters(c.filters)];
  const whoBuf = Buffer.from(who);
  filters.push((d) => d.length >= 165 && whoBuf.equals(d.subarray(ownerOffset, ownerOffset + 32)));
  if (ownerOffset === 76) filters.push((d) => d[72] === 1);
  if (mint) {
    const m = Buffer.from(mint);
    filters.push((d) => m.equals(d.subarray(0, 32)));
  }
  const out: { pubkey: string; account: Record<string, unknown> }[] = [];
  for (const program of programs) {
    const programBytes = decodeAddress(program);
    for (const e of scanProgramAccounts(ctx, programBytes, filters)) {
      if (!isTokenAccountData(e.account.data(), program)) continue;
      out.push({ pubkey: encodeBase58(e.address), account: encodeAccount(ctx.chain.svm, e.account, cfg) });
    }
  }
  return withContext(ctx, out);
}

/** SPL Token (and Token-2022) query methods. */
export const tokenMethods: Record<string, RpcHandler> = {
  getTokenAccountsByOwner: (params, ctx) => tokenAccountsBy(params, ctx, 32),
  getTokenAccountsByDelegate: (params, ctx) => tokenAccountsBy(params, ctx, 76),
  getTokenAccountBalance: (params, ctx) => {
    const t = readTokenAccount(ctx, str(asParams(params), 0, "token account"));
    const { decimals } = readMint(ctx, t.mint);
    return withContext(ctx, uiTokenAmount(t.amount, decimals));
  },
  getTokenSupply: (params, ctx) => {
    const m = readMint(ctx, str(asParams(params), 0, "mint"));
    return withContext(ctx, uiTokenAmount(m.supply, m.decimals));
  },
  getTokenLargestAccounts: (params, ctx) => {
    const mintAddress = str(asParams(params), 0, "mint");
    const m = readMint(ctx, mintAddress);
    const mint = Buffer.from(decodeAddress(mintAddress));
    const rows = scanProgramAccounts(ctx, decodeAddress(m.program), [
      (d) => isTokenAccountData(d, m.program) && mint.equals(d.subarray(0, 32)),
    ]).map((e) => ({
      address: encodeBase58(e.address),
      amount: decodeTokenAccount(e.account.data()).amount,
    }));
    rows.sort((a, b) => (a.amount === b.amount ? 0 : a.amount > b.amount ? -1 : 1));
    return withContext(
      ctx,
      rows.slice(0, 20).map((r) => ({ address: r.address, ...uiTokenAmount(r.amount, m.decimals) })),
    );
  },
};
