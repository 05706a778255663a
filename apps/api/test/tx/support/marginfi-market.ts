/**
 * A marginfi v2 market on the localnet for the API's delegation tests: a group and USDC / SOL banks made by
 * marginfi's own admin instructions on the Pyth price accounts the localnet posts, a trader lending 2,000 USDC and
 * borrowing 1,000 USDC against 100 SOL (50% utilization), and the lending program pinning marginfi's program and
 * the group as its lending venue.
 */
import {
  getAssociatedTokenAddress,
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
import { getPriorityFeeOptions } from "@cistern/protocol";
import { getSetVenuesInstruction, NO_VENUE, readKeypairFile } from "@cistern/sdk";
import {
  type Address,
  generateKeyPairSigner,
  getAddressEncoder,
  type Instruction,
  type KeyPairSigner,
} from "@solana/kit";
import { fundedWallet, post, SOL_MINT, signAll, type TxWorld, USDC_MINT } from "./tx-world.ts";

/** marginfi v2, at its mainnet id (the localnet runs the vendored binary there). */
export const MARGINFI = MARGINFI_PROGRAM as Address;
/** The trader's market: USDC lent, USDC borrowed, SOL deposited as collateral (base units). */
export const MARGINFI_TEST_MARKET = {
  usdcLent: 2_000_000_000n,
  usdcBorrowed: 1_000_000_000n,
  solCollateral: 100_000_000_000n,
};

/** The group's and banks' keys: known before the API starts, which is configured with them. */
export interface MarginfiKeys {
  group: KeyPairSigner;
  banks: { USDC: KeyPairSigner; SOL: KeyPairSigner };
}

export async function generateMarginfiKeys(): Promise<MarginfiKeys> {
  return {
    group: await generateKeyPairSigner(),
    banks: { USDC: await generateKeyPairSigner(), SOL: await generateKeyPairSigner() },
  };
}

/** The API environment that points the marginfi venue at `keys`' group and banks. */
export function marginfiEnv(keys: MarginfiKeys): Record<string, string> {
  return {
    MARGINFI_GROUP: keys.group.address,
    MARGINFI_BANKS: `${USDC_MINT}:${keys.banks.USDC.address},${SOL_MINT}:${keys.banks.SOL.address}`,
  };
}

/** Instructions signed by `signers` (the first pays), through the API's factory and sender. */
export async function sendInstructions(w: TxWorld, signers: KeyPairSigner[], instructions: Instruction[]) {
  const built = await w.tx.factory.build({
    feePayer: signers[0]!.address,
    groups: [instructions],
    options: getPriorityFeeOptions(),
    needsOracle: false,
  });
  const [signed] = await signAll(built, signers);
  const sent = await post(w.app, "/send-transaction", {
    transaction: signed,
    blockHeight: built.lastValidBlockHeight,
  });
  if (sent.status !== 200 || sent.body.result === null) throw new Error(JSON.stringify(sent.body));
}

/** Makes the group, the banks and the trader's market, and pins marginfi as the lending venue; returns marginfi's admin. */
export async function createMarginfiMarket(w: TxWorld, keys: MarginfiKeys): Promise<KeyPairSigner> {
  const { group, banks } = keys;
  const admin = (await fundedWallet(w.net)).signer;
  await w.net.fundWallet(admin.address, { lamports: 100_000_000_000_000n });
  await sendInstructions(
    w,
    [admin, group],
    [marginfiGroupInitialize({ group: group.address, admin: admin.address })],
  );
  for (const symbol of ["USDC", "SOL"] as const) {
    const feed = PYTH_FEEDS.find((f) => f.symbol === symbol)!;
    const b = banks[symbol];
    const common = { group: group.address, admin: admin.address, bank: b.address };
    await sendInstructions(
      w,
      [admin, b],
      [
        marginfiAddBank({ ...common, mint: feed.mint, config: MARGINFI_DEMO_BANKS[symbol]!.config }),
        marginfiConfigureBankOracle({
          ...common,
          setup: ORACLE_SETUP_PYTH_PUSH,
          oracleKey: pythFeedId(feed),
          oracleAccount: pythPriceFeedAddress(feed),
        }),
      ],
    );
  }
  const m = MARGINFI_TEST_MARKET;
  const trader = (await fundedWallet(w.net)).signer;
  await w.net.fundWallet(trader.address, {
    tokens: [
      { mint: USDC_MINT, amount: m.usdcLent },
      { mint: SOL_MINT, amount: m.solCollateral },
    ],
  });
  const lenderAccount = await generateKeyPairSigner();
  const borrowerAccount = await generateKeyPairSigner();
  const usdcAta = getAssociatedTokenAddress(trader.address, USDC_MINT) as Address;
  const solAta = getAssociatedTokenAddress(trader.address, SOL_MINT) as Address;
  const base = { group: group.address, authority: trader.address };
  await sendInstructions(
    w,
    [trader, lenderAccount, borrowerAccount],
    [
      marginfiAccountInitialize({ ...base, account: lenderAccount.address, feePayer: trader.address }),
      marginfiAccountInitialize({ ...base, account: borrowerAccount.address, feePayer: trader.address }),
      marginfiDeposit({
        ...base,
        account: lenderAccount.address,
        bank: banks.USDC.address,
        source: usdcAta,
        amount: m.usdcLent,
      }),
      marginfiDeposit({
        ...base,
        account: borrowerAccount.address,
        bank: banks.SOL.address,
        source: solAta,
        amount: m.solCollateral,
      }),
    ],
  );
  const oracleOf = (symbol: string) => pythPriceFeedAddress(PYTH_FEEDS.find((f) => f.symbol === symbol)!);
  await sendInstructions(
    w,
    [trader],
    [
      marginfiBorrow({
        ...base,
        account: borrowerAccount.address,
        bank: banks.USDC.address,
        destination: usdcAta,
        amount: m.usdcBorrowed,
        health: [
          { bank: banks.SOL.address, oracle: oracleOf("SOL") },
          { bank: banks.USDC.address, oracle: oracleOf("USDC") },
        ],
      }),
    ],
  );
  // the lending program's admin pins marginfi's program and this group as the lending venue
  const faucetAdmin = await readKeypairFile(w.net.faucetKeypairPath);
  const pin = await getSetVenuesInstruction({
    programAddress: w.programId,
    admin: faucetAdmin.address,
    swapProgram: NO_VENUE,
    lendingProgram: MARGINFI,
  });
  await sendInstructions(
    w,
    [faucetAdmin],
    [{ ...pin, data: Uint8Array.from([...pin.data!, ...getAddressEncoder().encode(group.address)]) }],
  );
  return admin;
}
