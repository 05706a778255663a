/**
 * A lending world with the local lending venue deployed and pinned (USDC-like currency reserve at 8% a year,
 * funded for yield): what the delegation tests and the delegation CU benchmark share.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  findLendingPositionPda,
  findVenuesPda,
  getDelegateInstruction,
  getInitializeLendingReserveInstruction,
  getSetVenuesInstruction,
  getWithdrawDelegatedInstruction,
  NO_VENUE,
} from "@cistern/sdk";
import {
  createLendingWorld,
  createMint,
  createPool,
  createWallet,
  type LendingWorld,
  mintTo,
  sendWithLiteSvm,
  takeLoan,
  type Wallet,
  type WorldPool,
} from "@cistern/sdk/testing";
import { type Address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";

const LENDING_SO = fileURLToPath(new URL("../../build/lending.so", import.meta.url));
const VENUE_SO = fileURLToPath(new URL("../../../lending-venue/build/lending-venue.so", import.meta.url));
export const DELEGATION_DEPOSIT = 1_000_000_000n; // 1,000 units of a 6-decimal currency
export const DAY = 86_400n;

export interface Venue {
  program: Address;
  reserve: Address;
  venueVault: Address;
}

/** Deploys a copy of the lending venue with a reserve of `mint` funded for yield (not pinned). */
export async function deployLendingVenue(w: LendingWorld, mint: Address, rateBps = 800): Promise<Venue> {
  const program = (await generateKeyPairSigner()).address;
  w.svm.addProgram(program, new Uint8Array(readFileSync(VENUE_SO)));
  const init = await getInitializeLendingReserveInstruction({
    programAddress: program,
    admin: w.admin,
    mint,
    rateBps,
  });
  await sendWithLiteSvm(w.svm, [init], w.admin);
  // the yield the venue pays comes from its vault (its borrowers, in a real venue)
  await mintTo(w.svm, w.admin, mint, init.vault, 100_000_000_000n);
  return { program, reserve: init.reserve, venueVault: init.vault };
}

type Overrides = Partial<Venue & { position: Address; positionBump: number }>;

export interface DelegationWorld {
  w: LendingWorld;
  venue: Venue;
  owner: KeyPairSigner;
  position: Address;
  delegate(authority: KeyPairSigner, amount: bigint, over?: Overrides): ReturnType<typeof sendWithLiteSvm>;
  withdrawDelegated(
    signer: KeyPairSigner,
    shares: bigint,
    over?: Overrides,
  ): ReturnType<typeof sendWithLiteSvm>;
  /** A defi-pool (50% LTV) and a borrower holding its collateral, for loans that pull from the venue. */
  loanSetup(): Promise<{
    loan(principal: bigint, withPull: boolean, onSent?: (cu: bigint) => void): Promise<Address>;
    pool: WorldPool;
    borrower: Wallet;
  }>;
}

/** The lender's bank holds DELEGATION_DEPOSIT; the venue is pinned as the lending venue. */
export async function createDelegationWorld(): Promise<DelegationWorld> {
  const w = await createLendingWorld({ soPath: LENDING_SO, depositBaseUnits: DELEGATION_DEPOSIT });
  const venue = await deployLendingVenue(w, w.currencyMint);
  await sendWithLiteSvm(
    w.svm,
    [
      await getSetVenuesInstruction({
        programAddress: w.programAddress,
        admin: w.admin,
        swapProgram: NO_VENUE,
        lendingProgram: venue.program,
      }),
    ],
    w.admin,
  );
  const [position, positionBump] = await findLendingPositionPda(venue.program, venue.reserve, w.bank);
  const accounts = (over: Overrides) => ({
    programAddress: w.programAddress,
    bank: w.bank,
    venueProgram: over.program ?? venue.program,
    reserve: over.reserve ?? venue.reserve,
    venueVault: over.venueVault ?? venue.venueVault,
    position: over.position ?? position,
  });
  return {
    w,
    venue,
    owner: w.lender.signer,
    position,
    async delegate(authority, amount, over = {}) {
      const ix = await getDelegateInstruction({
        ...accounts(over),
        authority,
        payer: authority,
        amount,
        positionBump: over.positionBump ?? positionBump,
      });
      return sendWithLiteSvm(w.svm, [ix], authority);
    },
    async withdrawDelegated(signer, shares, over = {}) {
      const ix = await getWithdrawDelegatedInstruction({ ...accounts(over), owner: signer, shares });
      return sendWithLiteSvm(w.svm, [ix], signer);
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
      // currency for the interest of repayments
      await mintTo(
        w.svm,
        w.admin,
        w.currencyMint,
        borrower.tokenAccounts.get(w.currencyMint)!,
        1_000_000_000_000n,
      );
      const pool = await createPool(w, {
        poolType: "defi-pool",
        collectionIds: [collateralMint],
        loanAprBps: 1200,
        ltvBps: 5000,
      });
      const [venues] = await findVenuesPda(w.programAddress);
      const pull = {
        venues,
        venueProgram: venue.program,
        reserve: venue.reserve,
        position,
        venueVault: venue.venueVault,
      };
      return {
        pool,
        borrower,
        loan: (principalBaseUnits, withPull, onSent) =>
          takeLoan(w, {
            pool,
            borrower,
            collateralMint,
            collection: collateralMint,
            collateralAmountBaseUnits: 1_000_000_000n,
            collateralValueBaseUnits: 1_000_000_000n,
            principalBaseUnits,
            durationSeconds: 7n * DAY,
            ...(withPull ? { pullFromVenue: pull } : {}),
            ...(onSent ? { onSent } : {}),
          }),
      };
    },
  };
}
