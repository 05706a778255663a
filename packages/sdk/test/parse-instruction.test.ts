import { describe, expect, it } from "vitest";
import {
  type Attestation,
  findBankPda,
  findLoanPda,
  findProgramDataAddress,
  getClosePoolInstruction,
  getCreateBankInstruction,
  getCreatePoolInstruction,
  getDepositInstruction,
  getExtendInstruction,
  getInitializeConfigInstruction,
  getLiquidateInstruction,
  getRepayInstruction,
  getTakeLoanInstruction,
  getUpdateConfigInstruction,
  getUpdatePoolInstruction,
  getWithdrawInstruction,
  isSdkError,
  type PoolParams,
  parseLendingInstruction,
  SDK_ERROR,
} from "../src/index.ts";
import { testAddress } from "./helpers.ts";

const programAddress = testAddress(100);
const attestation: Attestation = {
  collateralValueBaseUnits: 9n,
  collection: testAddress(30),
  currencyPriceMicroUsd: 1n,
  walletAgeSeconds: 2n,
  pastLoans: 3n,
  volumeMicroUsd: 4n,
  slot: 5n,
};
const params: PoolParams = {
  flags: { autoSell: true, mortgage: false, compounding: true },
  loanAprBps: 100,
  mortgageAprBps: 0,
  maxDurationSeconds: 86_400n,
  minAmountMicroUsd: 0n,
  maxAmountMicroUsd: 1n,
  conditions: {
    isEnabled: false,
    whitelistEnabled: true,
    liquidationThresholdBps: 1,
    minAgeSeconds: 0n,
    minLoanCount: 0n,
    minVolumeMicroUsd: 0n,
    whitelist: testAddress(33),
  },
  collections: [{ id: testAddress(31), ltvBps: 1, exposureBps: 2 }],
};

describe("parseLendingInstruction", () => {
  it("decodes what every builder produces, with named accounts", async () => {
    const owner = testAddress(1);
    const mint = testAddress(2);
    const [bank] = await findBankPda(programAddress, owner, mint);
    const init = parseLendingInstruction(
      await getInitializeConfigInstruction({
        programAddress,
        admin: owner,
        oracle: mint,
        treasury: bank,
        protocolFeeBps: 2000,
      }),
    );
    expect(init).toMatchObject({
      type: "InitializeConfig",
      data: { protocolFeeBps: 2000, oracle: mint, treasury: bank },
    });
    expect(init.accounts).toMatchObject({
      admin: owner,
      program: programAddress,
      programData: await findProgramDataAddress(programAddress),
    });
    expect(
      parseLendingInstruction(
        await getUpdateConfigInstruction({ programAddress, admin: owner, paused: true }),
      ),
    ).toMatchObject({
      type: "UpdateConfig",
      data: { mask: 4, paused: true, oracle: null, treasury: null, admin: null },
    });
    expect(
      parseLendingInstruction(await getCreateBankInstruction({ programAddress, owner, mint })),
    ).toMatchObject({
      type: "CreateBank",
      accounts: { owner, bank, currencyMint: mint },
    });
    const deposit = { programAddress, owner, mint, amountBaseUnits: 77n };
    expect(
      parseLendingInstruction(await getDepositInstruction({ ...deposit, sourceTokenAccount: owner })),
    ).toMatchObject({
      type: "Deposit",
      data: { amountBaseUnits: 77n },
      accounts: { bank, ownerTokenAccount: owner },
    });
    expect(
      parseLendingInstruction(await getWithdrawInstruction({ ...deposit, destinationTokenAccount: owner }))
        .type,
    ).toBe("Withdraw");
    const create = parseLendingInstruction(
      await getCreatePoolInstruction({
        programAddress,
        owner,
        currencyMint: mint,
        poolType: "defi-pool",
        seed: 8n,
        params,
      }),
    );
    expect(create).toMatchObject({ type: "CreatePool", data: { poolType: "defi-pool", seed: 8n, params } });
    if (create.type !== "CreatePool") throw new Error("expected CreatePool");
    const pool = create.accounts.pool;
    expect(
      parseLendingInstruction(
        getUpdatePoolInstruction({
          programAddress,
          owner,
          pool,
          poolType: "defi-pool",
          status: "Frozen",
          params,
        }),
      ),
    ).toMatchObject({ type: "UpdatePool", data: { status: "Frozen", params } });
    expect(parseLendingInstruction(getClosePoolInstruction({ programAddress, owner, pool }))).toMatchObject({
      type: "ClosePool",
      accounts: { owner, pool },
    });
    const loanInput = {
      programAddress,
      borrower: owner,
      oracle: testAddress(3),
      pool,
      bank,
      collateralMint: mint,
      borrowerCurrencyTokenAccount: testAddress(4),
      nonce: 6n,
      principalBaseUnits: 10n,
      durationSeconds: 86_400n,
      collateralAmountBaseUnits: 1n,
      expectedAprBps: 100,
      attestation,
    };
    const take = parseLendingInstruction(
      await getTakeLoanInstruction({
        ...loanInput,
        poolType: "defi-pool",
        borrowerCollateralTokenAccount: testAddress(5),
        whitelist: testAddress(33),
      }),
    );
    const [loan] = await findLoanPda(programAddress, pool, owner, 6n);
    expect(take).toMatchObject({
      type: "TakeLoan",
      data: {
        nonce: 6n,
        principalBaseUnits: 10n,
        durationSeconds: 86_400n,
        expectedAprBps: 100,
        attestation,
      },
      accounts: { borrower: owner, oracle: testAddress(3), loan, whitelist: testAddress(33) },
    });
    const extend = parseLendingInstruction(
      await getExtendInstruction({
        ...loanInput,
        nonce: 7n,
        oldLoan: loan,
      }),
    );
    expect(extend).toMatchObject({
      type: "Extend",
      accounts: { oldLoan: loan, borrowerCurrencyTokenAccount: testAddress(4) },
    });
    expect(extend.accounts).not.toHaveProperty("whitelist");
    const repay = parseLendingInstruction(
      await getRepayInstruction({
        programAddress,
        borrower: owner,
        pool,
        bank,
        loan,
        borrowerCollateralTokenAccount: testAddress(5),
        borrowerCurrencyTokenAccount: testAddress(4),
      }),
    );
    expect(repay).toMatchObject({
      type: "Repay",
      accounts: { loan, borrowerCurrencyTokenAccount: testAddress(4) },
    });
    const liquidate = parseLendingInstruction(
      await getLiquidateInstruction({
        programAddress,
        liquidator: testAddress(7),
        pool,
        bank,
        loan,
        poolOwnerCollateralTokenAccount: testAddress(8),
      }),
    );
    expect(liquidate).toMatchObject({ type: "Liquidate", accounts: { liquidator: testAddress(7), loan } });
  });

  it("rejects unknown tags, wrong lengths and missing accounts", async () => {
    const bad =
      (data: number[], accounts: [] = []) =>
      () =>
        parseLendingInstruction({ data: new Uint8Array(data), accounts });
    for (const attempt of [bad([12]), bad([]), bad([3, 1, 2]), bad([9, 0]), bad([9])]) {
      expect(attempt).toThrowError();
      try {
        attempt();
      } catch (error) {
        expect(isSdkError(error, SDK_ERROR.UNKNOWN_INSTRUCTION)).toBe(true);
      }
    }
    expect(bad([9])).toThrowError(/missing account 0 \(borrower\)/);
  });
});
