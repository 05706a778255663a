import { join } from "node:path";
import {
  MARGINFI_DEMO_BANKS,
  MARGINFI_PROGRAM,
  marginfiAccountInitialize,
  marginfiAddBank,
  marginfiBorrow,
  marginfiConfigureBankOracle,
  marginfiDeposit,
  marginfiGroupInitialize,
  ORACLE_SETUP_PYTH_PUSH,
  PYTH_FEEDS,
  pythFeedId,
  pythPriceFeedAddress,
} from "@cistern/localnet";
import { decodeVenuesAccount, findVenuesPda, getSetVenuesInstruction, NO_VENUE } from "@cistern/sdk";
import { type Address, address, getAddressEncoder, type Instruction, type KeyPairSigner } from "@solana/kit";
import type { ChainClient } from "./chain-client.ts";
import { getKeysDir, loadOrCreateKeyFile } from "./key-files.ts";
import { fundAdmin } from "./swap-venue.ts";

/**
 * The demo market's own marginfi users, so the banks have borrowers and pay depositors a rate: one account
 * deposits USDC and borrows SOL, the other deposits SOL and borrows USDC (both owned by the admin).
 */
export const MARGINFI_DEMO_MARKET = {
  usdcDeposit: 2_000_000n * 10n ** 6n,
  solBorrow: 4_000n * 10n ** 9n,
  solDeposit: 20_000n * 10n ** 9n,
  usdcBorrow: 1_000_000n * 10n ** 6n,
};

export interface MarginfiBankInfo {
  symbol: string;
  mint: Address;
  bank: Address;
  /** The Pyth price account marginfi reads for this bank. */
  oracle: Address;
  action: "created" | "unchanged";
}

export interface MarginfiResult {
  programId: Address;
  group: Address;
  groupAction: "created" | "unchanged";
  banks: MarginfiBankInfo[];
  /** Whether the demo market's deposits and borrows were made by this run. */
  marketAction: "created" | "unchanged" | "skipped";
  /** Whether SetVenues pinned marginfi's program and this group as the lending venue (skipped: not asked). */
  venuesAction: "pinned" | "unchanged" | "skipped";
}

/**
 * Pins marginfi's program and `group` as the lending program's lending venue (SetVenues with the group: LAYOUT.md),
 * keeping the swap venue and NFT market; sends nothing when they are pinned already.
 */
export async function pinMarginfi(
  chain: ChainClient,
  admin: KeyPairSigner,
  lendingProgramId: Address,
  group: Address,
): Promise<"pinned" | "unchanged"> {
  const [venuesAddress] = await findVenuesPda(lendingProgramId);
  const account = await chain.fetchAccount(venuesAddress);
  const current = account === null ? null : decodeVenuesAccount(account.data);
  const groupBytes = getAddressEncoder().encode(group);
  const pinnedGroup = account?.data.subarray(112, 128);
  if (
    current?.lendingProgram === MARGINFI_PROGRAM &&
    pinnedGroup !== undefined &&
    Buffer.from(pinnedGroup).equals(Buffer.from(groupBytes.subarray(0, 16)))
  )
    return "unchanged";
  const ix = await getSetVenuesInstruction({
    programAddress: lendingProgramId,
    admin,
    swapProgram: current?.swapProgram ?? NO_VENUE,
    marketProgram: current?.marketProgram ?? NO_VENUE,
    lendingProgram: address(MARGINFI_PROGRAM),
  });
  await chain.send(
    "pin marginfi as the lending venue",
    [{ ...ix, data: Uint8Array.from([...(ix.data ?? []), ...groupBytes]) }],
    admin,
  );
  return "pinned";
}

/** Attaches the kit signers to the accounts they sign for (the builders name addresses only). */
function signedBy(ix: Instruction, signers: readonly KeyPairSigner[]): Instruction {
  return {
    ...ix,
    accounts: ix.accounts?.map((m) => {
      const signer = signers.find((s) => s.address === m.address);
      return signer && m.role >= 2 ? { ...m, signer } : m;
    }),
  };
}

/**
 * marginfi on the localnet, idempotently and only through marginfi's own transactions, as the group's admin
 * would on a cluster: a group (key `marginfi-group.json`), a bank per lending currency (keys
 * `marginfi-bank-<symbol>.json`) with MARGINFI_DEMO_BANKS's configuration and the Pyth push oracle the localnet
 * posts (feed id in the bank's config, the price account validated by marginfi), and with `demo` the demo
 * market's deposits and borrows. The FeeState account it needs is the localnet's (see packages/localnet/README).
 */
export async function ensureMarginfi(input: {
  chain: ChainClient;
  dataDir: string;
  admin: KeyPairSigner;
  demo: boolean;
  /** The lending program to pin marginfi's program and group in as its lending venue (none: not pinned). */
  lendingProgramId?: Address;
}): Promise<MarginfiResult> {
  const { chain, admin } = input;
  const keys = getKeysDir(input.dataDir);
  const group = await loadOrCreateKeyFile(join(keys, "marginfi-group.json"));
  let groupAction: MarginfiResult["groupAction"] = "unchanged";
  if ((await chain.fetchAccount(group.address)) === null) {
    await chain.send(
      "create the marginfi group",
      [signedBy(marginfiGroupInitialize({ group: group.address, admin: admin.address }), [group, admin])],
      admin,
    );
    groupAction = "created";
  }
  const banks: MarginfiBankInfo[] = [];
  for (const feed of PYTH_FEEDS) {
    const spec = MARGINFI_DEMO_BANKS[feed.symbol];
    if (spec === undefined) continue;
    const bank = await loadOrCreateKeyFile(join(keys, `marginfi-bank-${feed.symbol.toLowerCase()}.json`));
    const oracle = address(pythPriceFeedAddress(feed));
    const info: MarginfiBankInfo = {
      symbol: feed.symbol,
      mint: address(feed.mint),
      bank: bank.address,
      oracle,
      action: "unchanged",
    };
    if ((await chain.fetchAccount(bank.address)) === null) {
      const common = { group: group.address, admin: admin.address, bank: bank.address };
      await chain.send(
        `add the marginfi ${feed.symbol} bank`,
        [
          signedBy(marginfiAddBank({ ...common, mint: feed.mint, config: spec.config }), [admin, bank]),
          signedBy(
            marginfiConfigureBankOracle({
              ...common,
              setup: ORACLE_SETUP_PYTH_PUSH,
              oracleKey: pythFeedId(feed),
              oracleAccount: oracle,
            }),
            [admin],
          ),
        ],
        admin,
      );
      info.action = "created";
    }
    banks.push(info);
  }
  const marketAction = input.demo
    ? await ensureDemoMarket(chain, admin, keys, group.address, banks)
    : "skipped";
  const venuesAction =
    input.lendingProgramId === undefined
      ? "skipped"
      : await pinMarginfi(chain, admin, input.lendingProgramId, group.address);
  return {
    programId: address(MARGINFI_PROGRAM),
    group: group.address,
    groupAction,
    banks,
    marketAction,
    venuesAction,
  };
}

async function ensureDemoMarket(
  chain: ChainClient,
  admin: KeyPairSigner,
  keys: string,
  group: Address,
  banks: MarginfiBankInfo[],
): Promise<"created" | "unchanged"> {
  const usdc = banks.find((b) => b.symbol === "USDC");
  const sol = banks.find((b) => b.symbol === "SOL");
  if (!usdc || !sol) return "unchanged";
  const lender = await loadOrCreateKeyFile(join(keys, "marginfi-demo-usdc-account.json"));
  const staker = await loadOrCreateKeyFile(join(keys, "marginfi-demo-sol-account.json"));
  if ((await chain.fetchAccount(lender.address)) !== null) return "unchanged";
  const m = MARGINFI_DEMO_MARKET;
  const usdcAta = await fundAdmin(chain, admin, usdc.mint, m.usdcDeposit);
  const solAta = await fundAdmin(chain, admin, sol.mint, m.solDeposit);
  const base = { group, authority: admin.address };
  const open = (account: KeyPairSigner) =>
    signedBy(
      marginfiAccountInitialize({
        group,
        account: account.address,
        authority: admin.address,
        feePayer: admin.address,
      }),
      [account, admin],
    );
  const health = (...b: MarginfiBankInfo[]) => b.map((x) => ({ bank: x.bank, oracle: x.oracle }));
  const deposit = (account: Address, bank: MarginfiBankInfo, source: Address, amount: bigint) =>
    signedBy(marginfiDeposit({ ...base, account, bank: bank.bank, source, amount }), [admin]);
  await chain.send(
    "open the demo marginfi accounts and deposit",
    [
      open(lender),
      open(staker),
      deposit(lender.address, usdc, usdcAta, m.usdcDeposit),
      deposit(staker.address, sol, solAta, m.solDeposit),
    ],
    admin,
  );
  const borrow = (
    account: Address,
    bank: MarginfiBankInfo,
    destination: Address,
    amount: bigint,
    h: MarginfiBankInfo[],
  ) =>
    signedBy(
      marginfiBorrow({ ...base, account, bank: bank.bank, destination, amount, health: health(...h) }),
      [admin],
    );
  await chain.send(
    "borrow in the demo marginfi market",
    [
      borrow(lender.address, sol, solAta, m.solBorrow, [usdc, sol]),
      borrow(staker.address, usdc, usdcAta, m.usdcBorrow, [sol, usdc]),
    ],
    admin,
  );
  return "created";
}
