/**
 * A lending world whose lending venue is the real marginfi v2 program (the vendored mainnet build, at its mainnet
 * id): a marginfi group with a bank for the world's currency and one for a collateral token, Pyth push-oracle
 * prices for both, a marginfi lender and borrower so the currency bank pays depositors, and SetVenues pinning
 * marginfi's program and group. What the marginfi delegation tests and the CU bench share.
 */
import { fileURLToPath } from "node:url";
import {
  encodeMarginfiFeeState,
  encodePriceUpdateV2,
  getMarginfiFeeStateAddress,
  I80F48_ONE,
  i80f48,
  MARGINFI_PROGRAM,
  type MarginfiBankConfig,
  marginfiAccountInitialize,
  marginfiAddBank,
  marginfiBankVaults,
  marginfiBorrow,
  marginfiConfigureBank,
  marginfiConfigureBankOracle,
  marginfiDeposit,
  marginfiGroupInitialize,
  ORACLE_SETUP_PYTH_PUSH,
  PYTH_RECEIVER_PROGRAM,
  type PythFeed,
  pythFeedId,
  readVendoredProgram,
  VENDORED_PROGRAMS,
} from "@cistern/localnet";
import { findVenuesPda, getSetVenuesInstruction, getTakeLoanInstruction, NO_VENUE } from "@cistern/sdk";
import {
  attest,
  createLendingWorld,
  createMint,
  createPool,
  createWallet,
  getAccountData,
  getNow,
  type LendingWorld,
  mintTo,
  sendWithLiteSvm,
  tokenAccountOf,
  type Wallet,
  type WorldPool,
} from "@cistern/sdk/testing";
import {
  AccountRole,
  type Address,
  generateKeyPairSigner,
  getAddressEncoder,
  getProgramDerivedAddress,
  type Instruction,
  type KeyPairSigner,
  lamports,
} from "@solana/kit";

const LENDING_SO = fileURLToPath(new URL("../../build/lending.so", import.meta.url));
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" as Address;
const SYSTEM_PROGRAM = "11111111111111111111111111111111" as Address;
export const MFI = MARGINFI_PROGRAM as Address;
export const DEPOSIT = 1_000_000_000n; // 1,000 units of a 6-decimal currency
export const DAY = 86_400n;
const pct = (p: bigint) => i80f48(p, 100n);

/** The currency bank: 90% optimal utilization, 12% at the plateau, 150% max, a 5% group fee. */
export function bankConfig(over: Partial<MarginfiBankConfig> = {}): MarginfiBankConfig {
  return {
    assetWeightInit: pct(90n),
    assetWeightMaint: pct(95n),
    liabilityWeightInit: pct(125n),
    liabilityWeightMaint: pct(110n),
    depositLimit: 1_000_000_000_000n,
    interestRate: {
      optimalUtilizationRate: pct(90n),
      plateauInterestRate: pct(12n),
      maxInterestRate: pct(150n),
      insuranceFeeFixedApr: 0n,
      insuranceIrFee: 0n,
      protocolFixedFeeApr: 0n,
      protocolIrFee: pct(5n),
      protocolOriginationFee: 0n,
    },
    operationalState: 1,
    borrowLimit: 1_000_000_000_000n,
    riskTier: 0,
    assetTag: 0,
    totalAssetValueInitLimit: 0n,
    oracleMaxAge: 60,
    ...over,
  };
}

/** kit signers on the accounts they sign for (the marginfi builders name addresses only). */
export function signedBy(ix: Instruction, signers: readonly KeyPairSigner[]): Instruction {
  return {
    ...ix,
    accounts: ix.accounts?.map((m) => {
      const signer = signers.find((s) => s.address === m.address);
      return signer && m.role >= AccountRole.READONLY_SIGNER ? { ...m, signer } : m;
    }),
  };
}

export interface MarginfiBankInfo {
  bank: Address;
  mint: Address;
  oracle: Address;
  liquidityVault: Address;
  liquidityVaultAuthority: Address;
}

/** I80F48 raw at `offset`. */
export function i80f48At(data: Uint8Array, offset: number): bigint {
  const v = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return (v.getBigInt64(offset + 8, true) << 64n) | v.getBigUint64(offset, true);
}

export interface MarginfiWorld {
  w: LendingWorld;
  group: KeyPairSigner;
  currency: MarginfiBankInfo;
  collateral: MarginfiBankInfo;
  /** The bank's marginfi account (PDA of the lending program ["marginfi_account", bank]) and its bump. */
  position: Address;
  positionBump: number;
  owner: KeyPairSigner;
  /** The marginfi borrower (collateral in, currency out) and lender (currency in). */
  borrower: { wallet: Wallet; account: KeyPairSigner };
  /** Re-posts both prices at the clock's time. */
  postPrices(): void;
  /** marginfi's value of the bank's position now: floor(asset shares x asset share value), base units. */
  positionValue(): bigint;
  delegate(
    authority: KeyPairSigner,
    amount: bigint,
    over?: Partial<DelegationOverrides>,
  ): ReturnType<typeof sendWithLiteSvm>;
  withdrawDelegated(
    signer: KeyPairSigner,
    amount: bigint,
    over?: Partial<DelegationOverrides>,
  ): ReturnType<typeof sendWithLiteSvm>;
  /** marginfi borrow of `amount` currency by the marginfi borrower. */
  marginfiBorrow(amount: bigint): ReturnType<typeof sendWithLiteSvm>;
  configureBank(input: {
    operationalState?: number;
    depositLimit?: bigint;
  }): ReturnType<typeof sendWithLiteSvm>;
  /**
   * Writes the currency bank's operational state byte, as marginfi's admin sets it through configure (and marginfi's
   * bankruptcy handling sets KilledByBankruptcy, 3, which this marginfi build's configure does not know).
   */
  setBankState(state: number): void;
  loanSetup(): Promise<{
    loan(principal: bigint, withPull: boolean, over?: Partial<DelegationOverrides>): Promise<{ cu: bigint }>;
    pool: WorldPool;
  }>;
}

export interface DelegationOverrides {
  program: Address;
  group: Address;
  mbank: Address;
  position: Address;
  liquidityVault: Address;
  /** Delegate's data byte 9: the marginfi account's bump (the canonical one unless overridden). */
  bump: number;
}

/** marginfi's BankOperationalState byte in its Bank account (Paused 0, Operational 1, ReduceOnly 2, KilledByBankruptcy 3). */
export const MARGINFI_BANK_STATE_OFFSET = 608;

/** The delegation accounts 0-9 (Delegate / WithdrawDelegated through marginfi, LAYOUT.md). */
async function delegationMetas(m: MarginfiWorld, authority: KeyPairSigner, o: DelegationOverrides) {
  const [venues] = await findVenuesPda(m.w.programAddress);
  return [
    { address: authority.address, role: AccountRole.READONLY_SIGNER, signer: authority },
    { address: venues, role: AccountRole.READONLY },
    { address: m.w.bank, role: AccountRole.WRITABLE },
    { address: m.w.vault, role: AccountRole.WRITABLE },
    { address: o.program, role: AccountRole.READONLY },
    { address: o.group, role: AccountRole.READONLY },
    { address: o.mbank, role: AccountRole.WRITABLE },
    { address: o.position, role: AccountRole.WRITABLE },
    { address: TOKEN_PROGRAM, role: AccountRole.READONLY },
    { address: o.liquidityVault, role: AccountRole.WRITABLE },
  ];
}

function u64Data(tag: number, amount: bigint, extra: number[] = []): Uint8Array {
  const data = new Uint8Array(9 + extra.length);
  data[0] = tag;
  new DataView(data.buffer).setBigUint64(1, amount, true);
  data.set(extra, 9);
  return data;
}

async function addBank(
  w: LendingWorld,
  group: KeyPairSigner,
  mint: Address,
  price: bigint,
  config: MarginfiBankConfig,
): Promise<MarginfiBankInfo> {
  const bank = await generateKeyPairSigner();
  const oracle = (await generateKeyPairSigner()).address;
  const feed: PythFeed = {
    symbol: mint.slice(0, 4),
    mint,
    feedIdHex: Buffer.from(getAddressEncoder().encode(oracle)).toString("hex"),
  };
  setPrice(w, oracle, feed, price);
  const common = { group: group.address, admin: w.admin.address, bank: bank.address };
  await sendWithLiteSvm(
    w.svm,
    [
      signedBy(marginfiAddBank({ ...common, mint, config }), [w.admin, bank]),
      signedBy(
        marginfiConfigureBankOracle({
          ...common,
          setup: ORACLE_SETUP_PYTH_PUSH,
          oracleKey: pythFeedId(feed),
          oracleAccount: oracle,
        }),
        [w.admin],
      ),
    ],
    w.admin,
  );
  feeds.set(oracle, { feed, price });
  const v = marginfiBankVaults(bank.address);
  return {
    bank: bank.address,
    mint,
    oracle,
    liquidityVault: v.liquidityVault as Address,
    liquidityVaultAuthority: v.liquidityVaultAuthority as Address,
  };
}

const feeds = new Map<Address, { feed: PythFeed; price: bigint }>();

function setPrice(w: LendingWorld, oracle: Address, feed: PythFeed, price: bigint) {
  const now = getNow(w);
  const data = encodePriceUpdateV2(
    feed,
    { price, conf: price / 2000n, publishTime: now.unix, postedSlot: now.slot },
    oracle,
  );
  w.svm.setAccount({
    address: oracle,
    data,
    executable: false,
    lamports: lamports(w.svm.minimumBalanceForRentExemption(BigInt(data.length))),
    programAddress: PYTH_RECEIVER_PROGRAM as Address,
    space: BigInt(data.length),
    exists: true,
  } as never);
}

/** The world: DEPOSIT in the lender's bank, marginfi pinned with its group, a marginfi market at 50% utilization. */
export async function createMarginfiWorld(): Promise<MarginfiWorld> {
  const w = await createLendingWorld({ soPath: LENDING_SO, depositBaseUnits: DEPOSIT });
  const marginfi = VENDORED_PROGRAMS.find((p) => p.programId === MARGINFI_PROGRAM)!;
  w.svm.addProgram(MFI, readVendoredProgram(marginfi));
  const feeState = encodeMarginfiFeeState();
  w.svm.setAccount({
    address: getMarginfiFeeStateAddress()[0] as Address,
    data: feeState,
    executable: false,
    lamports: lamports(w.svm.minimumBalanceForRentExemption(BigInt(feeState.length))),
    programAddress: MFI,
    space: BigInt(feeState.length),
    exists: true,
  } as never);
  const group = await generateKeyPairSigner();
  await sendWithLiteSvm(
    w.svm,
    [signedBy(marginfiGroupInitialize({ group: group.address, admin: w.admin.address }), [group, w.admin])],
    w.admin,
  );
  const collateralMint = await createMint(w.svm, w.admin, 6);
  const currency = await addBank(w, group, w.currencyMint, 100_000_000n, bankConfig());
  const collateral = await addBank(w, group, collateralMint, 10_000_000_000n, bankConfig());
  // the marginfi market: a lender deposits 2,000 of the currency, a borrower pledges collateral and borrows 1,000
  const lenderWallet = await createWallet(w.svm, w.admin, [w.currencyMint]);
  const borrowerWallet = await createWallet(w.svm, w.admin, [w.currencyMint, collateralMint]);
  await mintTo(
    w.svm,
    w.admin,
    w.currencyMint,
    lenderWallet.tokenAccounts.get(w.currencyMint)!,
    2_000_000_000n,
  );
  await mintTo(
    w.svm,
    w.admin,
    collateralMint,
    borrowerWallet.tokenAccounts.get(collateralMint)!,
    1_000_000_000n,
  );
  const lenderAccount = await generateKeyPairSigner();
  const borrowerAccount = await generateKeyPairSigner();
  const open = (wallet: Wallet, account: KeyPairSigner) =>
    signedBy(
      marginfiAccountInitialize({
        group: group.address,
        account: account.address,
        authority: wallet.signer.address,
        feePayer: wallet.signer.address,
      }),
      [account, wallet.signer],
    );
  await sendWithLiteSvm(
    w.svm,
    [
      open(lenderWallet, lenderAccount),
      signedBy(
        marginfiDeposit({
          group: group.address,
          account: lenderAccount.address,
          authority: lenderWallet.signer.address,
          bank: currency.bank,
          source: lenderWallet.tokenAccounts.get(w.currencyMint)!,
          amount: 2_000_000_000n,
        }),
        [lenderWallet.signer],
      ),
    ],
    lenderWallet.signer,
  );
  await sendWithLiteSvm(
    w.svm,
    [
      open(borrowerWallet, borrowerAccount),
      signedBy(
        marginfiDeposit({
          group: group.address,
          account: borrowerAccount.address,
          authority: borrowerWallet.signer.address,
          bank: collateral.bank,
          source: borrowerWallet.tokenAccounts.get(collateralMint)!,
          amount: 1_000_000_000n,
        }),
        [borrowerWallet.signer],
      ),
    ],
    borrowerWallet.signer,
  );
  const [venues] = await findVenuesPda(w.programAddress);
  const setVenues = await getSetVenuesInstruction({
    programAddress: w.programAddress,
    admin: w.admin,
    swapProgram: NO_VENUE,
    lendingProgram: MFI,
  });
  await sendWithLiteSvm(
    w.svm,
    [
      {
        ...setVenues,
        data: Uint8Array.from([...setVenues.data!, ...getAddressEncoder().encode(group.address)]),
      },
    ],
    w.admin,
  );
  const [position, positionBump] = await getProgramDerivedAddress({
    programAddress: w.programAddress,
    seeds: ["marginfi_account", getAddressEncoder().encode(w.bank)],
  });
  const defaults = (o: Partial<DelegationOverrides>): DelegationOverrides => ({
    program: MFI,
    group: group.address,
    mbank: currency.bank,
    position,
    liquidityVault: currency.liquidityVault,
    bump: positionBump,
    ...o,
  });
  const m: MarginfiWorld = {
    w,
    group,
    currency,
    collateral,
    position,
    positionBump,
    owner: w.lender.signer,
    borrower: { wallet: borrowerWallet, account: borrowerAccount },
    postPrices() {
      for (const [oracle, f] of feeds)
        if (oracle === currency.oracle || oracle === collateral.oracle) setPrice(w, oracle, f.feed, f.price);
    },
    positionValue() {
      const account = getAccountData(w.svm, position);
      if (account === null) return 0n;
      const bank = getAccountData(w.svm, currency.bank)!;
      for (let i = 0; i < 16; i++) {
        const at = 72 + i * 104;
        if (account[at] === 0) continue;
        const shares = i80f48At(account, at + 40);
        return (shares * i80f48At(bank, 80)) / I80F48_ONE / I80F48_ONE;
      }
      return 0n;
    },
    async delegate(authority, amount, over = {}) {
      const o = defaults(over);
      const metas = await delegationMetas(m, authority, o);
      const ix: Instruction = {
        programAddress: w.programAddress,
        accounts: [
          ...metas,
          { address: authority.address, role: AccountRole.WRITABLE_SIGNER, signer: authority },
          { address: SYSTEM_PROGRAM, role: AccountRole.READONLY },
        ] as never,
        data: u64Data(17, amount, [o.bump]),
      };
      return sendWithLiteSvm(w.svm, [ix], authority);
    },
    async withdrawDelegated(signer, amount, over = {}) {
      const o = defaults(over);
      const metas = await delegationMetas(m, signer, o);
      const ix: Instruction = {
        programAddress: w.programAddress,
        accounts: [
          ...metas,
          { address: currency.liquidityVaultAuthority, role: AccountRole.WRITABLE },
          { address: currency.oracle, role: AccountRole.READONLY },
        ] as never,
        data: u64Data(18, amount),
      };
      return sendWithLiteSvm(w.svm, [ix], signer);
    },
    marginfiBorrow(amount) {
      m.postPrices();
      return sendWithLiteSvm(
        w.svm,
        [
          signedBy(
            marginfiBorrow({
              group: group.address,
              account: borrowerAccount.address,
              authority: borrowerWallet.signer.address,
              bank: currency.bank,
              destination: borrowerWallet.tokenAccounts.get(w.currencyMint)!,
              amount,
              health: [collateral, currency].map((b) => ({ bank: b.bank, oracle: b.oracle })),
            }),
            [borrowerWallet.signer],
          ),
        ],
        borrowerWallet.signer,
      );
    },
    configureBank(input) {
      return sendWithLiteSvm(
        w.svm,
        [
          signedBy(
            marginfiConfigureBank({
              group: group.address,
              admin: w.admin.address,
              bank: currency.bank,
              ...input,
            }),
            [w.admin],
          ),
        ],
        w.admin,
      );
    },
    setBankState(state) {
      const account = w.svm.getAccount(currency.bank);
      if (!account.exists) throw new Error("no marginfi bank");
      const data = Uint8Array.from(account.data);
      data[MARGINFI_BANK_STATE_OFFSET] = state;
      w.svm.setAccount({ ...account, address: currency.bank, data } as never);
    },
    async loanSetup() {
      const collateralMint = await createMint(w.svm, w.admin, 6);
      const borrower = await createWallet(w.svm, w.admin, [collateralMint, w.currencyMint]);
      await mintTo(
        w.svm,
        w.admin,
        collateralMint,
        borrower.tokenAccounts.get(collateralMint)!,
        10_000_000_000n,
      );
      const pool = await createPool(w, {
        poolType: "defi-pool",
        collectionIds: [collateralMint],
        loanAprBps: 1200,
        ltvBps: 5000,
      });
      return {
        pool,
        async loan(principal, withPull, over = {}) {
          const o = defaults(over);
          const input = {
            pool,
            borrower,
            collateralMint,
            collection: collateralMint,
            collateralAmountBaseUnits: 1_000_000_000n,
            collateralValueBaseUnits: 1_000_000_000n,
            principalBaseUnits: principal,
            durationSeconds: 7n * DAY,
          };
          const ix = await getTakeLoanInstruction({
            programAddress: w.programAddress,
            borrower: borrower.signer,
            oracle: w.oracle,
            pool: pool.address,
            poolType: pool.poolType,
            bank: pool.bank.address,
            collateralMint,
            borrowerCollateralTokenAccount: await tokenAccountOf(w, borrower, collateralMint),
            borrowerCurrencyTokenAccount: await tokenAccountOf(w, borrower, w.currencyMint),
            nonce: w.counters.loanNonce++,
            principalBaseUnits: principal,
            durationSeconds: input.durationSeconds,
            collateralAmountBaseUnits: input.collateralAmountBaseUnits,
            expectedAprBps: pool.loanAprBps,
            attestation: attest(w, input),
            pullFromVenue: null,
          });
          const accounts = [...(ix.accounts ?? [])];
          const data = Uint8Array.from(ix.data!);
          if (withPull) {
            data[120] = accounts.length;
            accounts.push(
              { address: venues, role: AccountRole.READONLY },
              { address: o.program, role: AccountRole.READONLY },
              { address: o.group, role: AccountRole.READONLY },
              { address: o.mbank, role: AccountRole.WRITABLE },
              { address: o.position, role: AccountRole.WRITABLE },
              { address: o.liquidityVault, role: AccountRole.WRITABLE },
              { address: currency.liquidityVaultAuthority, role: AccountRole.WRITABLE },
              { address: currency.oracle, role: AccountRole.READONLY },
            );
          }
          const sent = await sendWithLiteSvm(w.svm, [{ ...ix, accounts, data }], borrower.signer);
          return { cu: sent.computeUnits };
        },
      };
    },
  };
  await m.marginfiBorrow(1_000_000_000n);
  return m;
}
