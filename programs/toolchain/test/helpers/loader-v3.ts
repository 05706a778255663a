// Deploys a .so through the BPF Upgradeable Loader's own instructions (InitializeBuffer, Write,
// DeployWithMaxDataLen), so the runtime's strict deploy-time ELF checks run.
import {
  AccountRole,
  type AccountSignerMeta,
  type Address,
  address,
  generateKeyPairSigner,
  getAddressEncoder,
  getProgramDerivedAddress,
} from "@solana/kit";
import { getCreateAccountInstruction } from "@solana-program/system";
import { type Harness, send } from "./svm.ts";

export const LOADER_V3 = address("BPFLoaderUpgradeab1e11111111111111111111111");
const SYSVAR_RENT = address("SysvarRent111111111111111111111111111111111");
const SYSVAR_CLOCK = address("SysvarC1ock11111111111111111111111111111111");
const SYSTEM_PROGRAM = address("11111111111111111111111111111111");
const BUFFER_METADATA_BYTES = 37n;
const PROGRAM_ACCOUNT_BYTES = 36n;
const WRITE_CHUNK_BYTES = 900;

const u32 = (v: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v);
  return b;
};
const u64 = (v: bigint): Buffer => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(v);
  return b;
};

/** Deploys `so` with the payer as upgrade authority; returns the program id. */
export async function deployUpgradeable(h: Harness, so: Uint8Array): Promise<Address> {
  const { payer, svm } = h;
  const signerMeta = (
    role: AccountRole.READONLY_SIGNER | AccountRole.WRITABLE_SIGNER,
  ): AccountSignerMeta => ({
    address: payer.address,
    role,
    signer: payer,
  });
  const buffer = await generateKeyPairSigner();
  const program = await generateKeyPairSigner();
  const bufferSize = BUFFER_METADATA_BYTES + BigInt(so.length);
  await send(h, [
    getCreateAccountInstruction({
      payer,
      newAccount: buffer,
      lamports: svm.minimumBalanceForRentExemption(bufferSize),
      space: bufferSize,
      programAddress: LOADER_V3,
    }),
    {
      programAddress: LOADER_V3,
      accounts: [
        { address: buffer.address, role: AccountRole.WRITABLE },
        { address: payer.address, role: AccountRole.READONLY },
      ],
      data: u32(0), // InitializeBuffer
    },
  ]);
  for (let off = 0; off < so.length; off += WRITE_CHUNK_BYTES) {
    const chunk = so.subarray(off, off + WRITE_CHUNK_BYTES);
    await send(h, [
      {
        programAddress: LOADER_V3,
        accounts: [
          { address: buffer.address, role: AccountRole.WRITABLE },
          signerMeta(AccountRole.READONLY_SIGNER),
        ],
        data: Buffer.concat([u32(1), u32(off), u64(BigInt(chunk.length)), chunk]), // Write
      },
    ]);
  }
  const [programData] = await getProgramDerivedAddress({
    programAddress: LOADER_V3,
    seeds: [getAddressEncoder().encode(program.address)],
  });
  await send(h, [
    getCreateAccountInstruction({
      payer,
      newAccount: program,
      lamports: svm.minimumBalanceForRentExemption(PROGRAM_ACCOUNT_BYTES),
      space: PROGRAM_ACCOUNT_BYTES,
      programAddress: LOADER_V3,
    }),
    {
      programAddress: LOADER_V3,
      accounts: [
        signerMeta(AccountRole.WRITABLE_SIGNER),
        { address: programData, role: AccountRole.WRITABLE },
        { address: program.address, role: AccountRole.WRITABLE },
        { address: buffer.address, role: AccountRole.WRITABLE },
        { address: SYSVAR_RENT, role: AccountRole.READONLY },
        { address: SYSVAR_CLOCK, role: AccountRole.READONLY },
        { address: SYSTEM_PROGRAM, role: AccountRole.READONLY },
        signerMeta(AccountRole.READONLY_SIGNER),
      ],
      data: Buffer.concat([u32(2), u64(BigInt(so.length) * 2n)]), // DeployWithMaxDataLen
    },
  ]);
  // a program becomes invocable in the slot after its deployment
  svm.warpToSlot(svm.getClock().slot + 1n);
  return program.address;
}
