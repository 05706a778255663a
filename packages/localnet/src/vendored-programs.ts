import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { LiteSvm } from "litesvm/dist/internal";
import { decodeAddress } from "./base58.ts";
import { TOKEN_METADATA_PROGRAM_ADDRESS } from "./demo-world.ts";

/** A real mainnet program binary shipped in `packages/localnet/programs/` (see its PROVENANCE.md). */
export interface VendoredProgram {
  name: string;
  /** Mainnet program id, where the localnet loads it. */
  programId: string;
  /** File name in `packages/localnet/programs/`. */
  file: string;
}

/** Metaplex Token Auth Rules (pNFT rule sets). */
export const TOKEN_AUTH_RULES_PROGRAM = "auth9SigNpDKz4sJJ1DfCTuZrZNSAgh9sFD3rboVmgg";
/** Metaplex Core. */
export const MPL_CORE_PROGRAM = "CoREENxT6tW1HoK8ypY1SxRMZTcVPm7R94rH4PZNhX7d";
/** Metaplex Bubblegum (compressed NFTs, V1). */
export const BUBBLEGUM_PROGRAM = "BGUMAp9Gq7iTEuizy4pqaxsTyUCBK68MDfK752saRPUY";
/** SPL Account Compression (Bubblegum V1's merkle trees). */
export const SPL_ACCOUNT_COMPRESSION_PROGRAM = "cmtDvXumGCrqC1Age74AVPhSRVXJMd8PJS91L8KbNCK";
/** SPL Noop (Bubblegum V1's log wrapper). */
export const SPL_NOOP_PROGRAM = "noopb9bkMVfRPU8AsbpTUg8AQkHtKwMYZiFUjNRtMmV";
/** marginfi v2. */
export const MARGINFI_PROGRAM = "MFv2hWf31Z9kbCa1snEPYctwafyhdvnV7FZnsebVacA";

/** Every vendored program, loaded at its mainnet id on every start. */
export const VENDORED_PROGRAMS: readonly VendoredProgram[] = [
  { name: "Token Metadata", programId: TOKEN_METADATA_PROGRAM_ADDRESS, file: "mpl_token_metadata.so" },
  { name: "Token Auth Rules", programId: TOKEN_AUTH_RULES_PROGRAM, file: "mpl_token_auth_rules.so" },
  { name: "Core", programId: MPL_CORE_PROGRAM, file: "mpl_core.so" },
  { name: "Bubblegum", programId: BUBBLEGUM_PROGRAM, file: "mpl_bubblegum.so" },
  {
    name: "SPL Account Compression",
    programId: SPL_ACCOUNT_COMPRESSION_PROGRAM,
    file: "spl_account_compression.so",
  },
  { name: "SPL Noop", programId: SPL_NOOP_PROGRAM, file: "spl_noop.so" },
  { name: "marginfi v2", programId: MARGINFI_PROGRAM, file: "marginfi.so" },
];

/** Directory of the vendored binaries (inside the package, never outside the project). */
export const VENDORED_PROGRAMS_DIR = fileURLToPath(new URL("../programs/", import.meta.url));

/** Header of an upgradeable loader ProgramData account: tag u32, slot u64, Option<authority>. */
const PROGRAM_DATA_HEADER_BYTES = 45;

/** File bytes, read once per process and shared by every chain the process starts. */
const fileCache = new Map<string, Uint8Array>();

/** The bytes of a vendored program's `.so` (read once per process). */
export function readVendoredProgram(p: VendoredProgram): Uint8Array {
  let bytes = fileCache.get(p.file);
  if (!bytes) {
    bytes = Uint8Array.from(readFileSync(`${VENDORED_PROGRAMS_DIR}${p.file}`));
    fileCache.set(p.file, bytes);
  }
  return bytes;
}

/** Whether the program account at `programId` already runs exactly `bytes` (e.g. restored from a snapshot). */
function isLoaded(svm: LiteSvm, programId: Uint8Array, bytes: Uint8Array): boolean {
  const program = svm.getAccount(programId);
  if (!program?.executable()) return false;
  const data = program.data();
  // UpgradeableLoaderState::Program { programdata_address }
  if (data.length !== 36 || data[0] !== 2) return false;
  const programData = svm.getAccount(data.subarray(4, 36))?.data();
  if (!programData || programData.length !== PROGRAM_DATA_HEADER_BYTES + bytes.length) return false;
  return Buffer.compare(programData.subarray(PROGRAM_DATA_HEADER_BYTES), bytes) === 0;
}

/**
 * Loads every vendored program at its mainnet id (LiteSVM `addProgram`: a program account owned by the
 * upgradeable loader, with no upgrade authority), as a validator started with `--bpf-program`. A program the
 * restored state already holds byte-for-byte is left as it is (the snapshot restore loaded it). Returns the
 * names of the programs it (re)loaded.
 */
export function loadVendoredPrograms(svm: LiteSvm, programs: readonly VendoredProgram[] = VENDORED_PROGRAMS) {
  const loaded: string[] = [];
  for (const p of programs) {
    const id = decodeAddress(p.programId);
    const bytes = readVendoredProgram(p);
    if (isLoaded(svm, id, bytes)) continue;
    svm.addProgram(id, bytes);
    loaded.push(p.name);
  }
  return loaded;
}
