import { createHash } from "node:crypto";
import { type Address, getAddressDecoder, getAddressEncoder } from "@solana/kit";
import { describe, expect, it } from "vitest";
import {
  findBankPda,
  findConfigPda,
  findEscrowPda,
  findLoanPda,
  findPoolPda,
  findVaultPda,
} from "../src/index.ts";
import { testAddress } from "./helpers.ts";

const programAddress = testAddress(100);
const enc = (a: Address) => Uint8Array.from(getAddressEncoder().encode(a));
const u64le = (n: bigint) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, n, true);
  return b;
};

/** The runtime's create_program_address hash, computed independently of kit. */
function programAddressFor(seeds: Uint8Array[], bump: number): Address {
  const h = createHash("sha256");
  for (const s of seeds) h.update(s);
  h.update(Uint8Array.of(bump));
  h.update(enc(programAddress));
  h.update("ProgramDerivedAddress");
  return getAddressDecoder().decode(h.digest());
}

const text = (s: string) => new TextEncoder().encode(s);

describe("PDA helpers", () => {
  it("derive each account from the LAYOUT.md seeds", async () => {
    const owner = testAddress(1);
    const mint = testAddress(2);
    const borrower = testAddress(3);
    const [config, configBump] = await findConfigPda(programAddress);
    expect(config).toBe(programAddressFor([text("config")], configBump));
    const [bank, bankBump] = await findBankPda(programAddress, owner, mint);
    expect(bank).toBe(programAddressFor([text("bank"), enc(owner), enc(mint)], bankBump));
    const [vault, vaultBump] = await findVaultPda(programAddress, bank);
    expect(vault).toBe(programAddressFor([text("vault"), enc(bank)], vaultBump));
    const seed = 0x0102_0304_0506_0708n;
    const [pool, poolBump] = await findPoolPda(programAddress, owner, seed);
    expect(pool).toBe(programAddressFor([text("pool"), enc(owner), u64le(seed)], poolBump));
    const [loan, loanBump] = await findLoanPda(programAddress, pool, borrower, 99n);
    expect(loan).toBe(programAddressFor([text("loan"), enc(pool), enc(borrower), u64le(99n)], loanBump));
    const [escrow, escrowBump] = await findEscrowPda(programAddress, loan);
    expect(escrow).toBe(programAddressFor([text("escrow"), enc(loan)], escrowBump));
  });

  it("gives different pools for different seeds and owners", async () => {
    const [a] = await findPoolPda(programAddress, testAddress(1), 1n);
    const [b] = await findPoolPda(programAddress, testAddress(1), 2n);
    const [c] = await findPoolPda(programAddress, testAddress(2), 1n);
    expect(new Set([a, b, c]).size).toBe(3);
  });
});
