// Applies the input objects' relocations to the output .text/.rodata images.
//  * data addresses (lddw, 64-bit pointers in rodata) are resolved to their final VM address
//    (MM_PROGRAM_START + file offset), so they need no dynamic relocation;
//  * calls to defined functions become pc-relative `call imm` (the loader registers every call target);
//  * calls to undefined names become syscalls: `call -1` plus an R_BPF_64_32 dynamic relocation
//    against an undefined .dynsym symbol; the loader hashes the name (murmur3) and patches the imm.
import { TOOLCHAIN_ERROR_CODES, ToolchainError, type ToolchainErrorCode } from "../errors.ts";
import {
  INSN_SIZE,
  MM_PROGRAM_START,
  OP_CALL,
  OP_LDDW,
  R_BPF_64_32,
  R_BPF_64_64,
  R_BPF_64_ABS32,
  R_BPF_64_ABS64,
  R_BPF_64_NODYLD32,
  R_BPF_NONE,
  SHN_ABS,
  SHN_COMMON,
  SHN_UNDEF,
  STT_SECTION,
} from "./elf-constants.ts";
import type { ElfRelocation, ObjectFile } from "./elf-reader.ts";
import type { OutputKind, PlacedSection, SectionLayout } from "./layout.ts";
import { KNOWN_SYSCALLS } from "./syscalls.ts";

export interface OutputImages {
  text: Buffer;
  rodata: Buffer;
  textFileOffset: number;
  rodataFileOffset: number;
}

export interface DynamicRelocation {
  /** File offset (== vaddr) of the call instruction. */
  fileOffset: number;
  syscall: string;
}

export interface RelocationResult {
  /** Syscall names in order of first use (deterministic). */
  syscalls: string[];
  dynamicRelocations: DynamicRelocation[];
}

interface ResolvedSymbol {
  /** File offset (== vaddr relative to MM_PROGRAM_START) or null when undefined. */
  fileOffset: number | null;
  kind: OutputKind | null;
}

function fail(code: ToolchainErrorCode, msg: string): never {
  throw new ToolchainError(code, msg);
}

function resolveSymbol(
  objects: ObjectFile[],
  layout: SectionLayout,
  images: OutputImages,
  objectIndex: number,
  symbolIndex: number,
  where: string,
): { name: string; resolved: ResolvedSymbol } {
  const obj = objects[objectIndex]!;
  const sym = obj.symbols[symbolIndex];
  if (!sym) fail(TOOLCHAIN_ERROR_CODES.UNSUPPORTED_RELOCATION, `${where}: bad symbol index ${symbolIndex}`);
  const base = (p: PlacedSection): number =>
    (p.kind === "text" ? images.textFileOffset : images.rodataFileOffset) + p.offset;
  if (sym.shndx === SHN_UNDEF) {
    const g = layout.globals.get(sym.name);
    const p = g ? layout.placed(g.objectIndex, g.shndx) : undefined;
    if (g && p) return { name: sym.name, resolved: { fileOffset: base(p) + g.value, kind: p.kind } };
    return { name: sym.name, resolved: { fileOffset: null, kind: null } };
  }
  if (sym.shndx === SHN_ABS || sym.shndx === SHN_COMMON) {
    fail(
      TOOLCHAIN_ERROR_CODES.UNSUPPORTED_RELOCATION,
      `${where}: absolute/common symbol '${sym.name}' unsupported`,
    );
  }
  const p = layout.placed(objectIndex, sym.shndx);
  if (!p) {
    const secName = obj.sections[sym.shndx]?.name ?? "?";
    fail(
      TOOLCHAIN_ERROR_CODES.UNSUPPORTED_RELOCATION,
      `${where}: reference to section ${secName} which is not code or read-only data (via '${sym.name}')`,
    );
  }
  const value = sym.type === STT_SECTION ? 0 : sym.value;
  return {
    name: sym.name || (obj.sections[sym.shndx]?.name ?? ""),
    resolved: { fileOffset: base(p) + value, kind: p.kind },
  };
}

function applyOne(
  r: ElfRelocation,
  target: PlacedSection,
  buf: Buffer,
  images: OutputImages,
  sym: { name: string; resolved: ResolvedSymbol },
  where: string,
  result: RelocationResult,
): void {
  const P = target.offset + r.offset;
  const S = sym.resolved.fileOffset;
  switch (r.type) {
    case R_BPF_NONE:
    case R_BPF_64_NODYLD32:
      return;
    case R_BPF_64_64: {
      // lddw rX, sym + A (A sits in the low imm word)
      if (target.kind !== "text" || buf[P] !== OP_LDDW) {
        fail(
          TOOLCHAIN_ERROR_CODES.UNSUPPORTED_RELOCATION,
          `${where}: R_BPF_64_64 not on an lddw instruction`,
        );
      }
      if (S === null) {
        fail(TOOLCHAIN_ERROR_CODES.UNDEFINED_SYMBOL, `${where}: undefined data symbol '${sym.name}'`);
      }
      const A = buf.readUInt32LE(P + 4);
      const v = MM_PROGRAM_START + BigInt(S + A);
      buf.writeUInt32LE(Number(v & 0xffffffffn), P + 4);
      buf.writeUInt32LE(Number(v >> 32n), P + 12);
      return;
    }
    case R_BPF_64_ABS64: {
      if (S === null)
        fail(TOOLCHAIN_ERROR_CODES.UNDEFINED_SYMBOL, `${where}: undefined symbol '${sym.name}'`);
      const A = buf.readBigUInt64LE(P);
      buf.writeBigUInt64LE(MM_PROGRAM_START + BigInt(S) + A, P);
      return;
    }
    case R_BPF_64_32: {
      if (target.kind !== "text" || buf[P] !== OP_CALL) {
        fail(TOOLCHAIN_ERROR_CODES.UNSUPPORTED_RELOCATION, `${where}: R_BPF_64_32 not on a call instruction`);
      }
      const callIndex = P / INSN_SIZE;
      if (S === null) {
        if (!KNOWN_SYSCALLS.has(sym.name)) {
          fail(
            TOOLCHAIN_ERROR_CODES.UNDEFINED_SYMBOL,
            `${where}: undefined function '${sym.name}' (not defined in any input and not a known Solana syscall)`,
          );
        }
        if (!result.syscalls.includes(sym.name)) result.syscalls.push(sym.name);
        buf[P + 1] = 0;
        buf.writeInt32LE(-1, P + 4);
        result.dynamicRelocations.push({ fileOffset: images.textFileOffset + P, syscall: sym.name });
        return;
      }
      if (sym.resolved.kind !== "text") {
        fail(TOOLCHAIN_ERROR_CODES.UNSUPPORTED_RELOCATION, `${where}: call to non-code symbol '${sym.name}'`);
      }
      // implicit addend: imm = A/8 - 1, so the target is S + (imm + 1) * 8
      const imm = buf.readInt32LE(P + 4);
      const targetIndex = (S - images.textFileOffset) / INSN_SIZE + imm + 1;
      if (!Number.isInteger(targetIndex)) {
        fail(TOOLCHAIN_ERROR_CODES.UNSUPPORTED_RELOCATION, `${where}: misaligned call target '${sym.name}'`);
      }
      buf[P + 1] = 0;
      buf.writeInt32LE(targetIndex - (callIndex + 1), P + 4);
      return;
    }
    case R_BPF_64_ABS32:
      fail(
        TOOLCHAIN_ERROR_CODES.UNSUPPORTED_RELOCATION,
        `${where}: 32-bit absolute relocation against '${sym.name}' unsupported (SBPF addresses are 64-bit)`,
      );
      break;
    default:
      fail(TOOLCHAIN_ERROR_CODES.UNSUPPORTED_RELOCATION, `${where}: unknown relocation type ${r.type}`);
  }
}

/** Applies every relocation of every kept section; relocations of dropped/debug sections are ignored. */
export function applyRelocations(
  objects: ObjectFile[],
  layout: SectionLayout,
  images: OutputImages,
): RelocationResult {
  const result: RelocationResult = { syscalls: [], dynamicRelocations: [] };
  for (const target of [...layout.text, ...layout.rodata]) {
    const obj = objects[target.objectIndex]!;
    const buf = target.kind === "text" ? images.text : images.rodata;
    for (const r of obj.relocations.get(target.section.index) ?? []) {
      const where = `${obj.name}:${target.section.name}+0x${r.offset.toString(16)}`;
      const sym = resolveSymbol(objects, layout, images, target.objectIndex, r.symbolIndex, where);
      applyOne(r, target, buf, images, sym, where, result);
    }
  }
  return result;
}
