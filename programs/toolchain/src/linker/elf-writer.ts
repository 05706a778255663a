// Writes an SBPF v0 ET_DYN shared object. Layout (identity mapped: sh_addr == sh_offset == p_vaddr,
// which the loader demands for v0):
//   ehdr | phdrs(2) | .text | .rodata | .dynamic | .dynsym | .dynstr | .rel.dyn | .shstrtab | shdrs
import {
  alignUp,
  DT_NULL,
  DT_REL,
  DT_RELENT,
  DT_RELSZ,
  DT_STRSZ,
  DT_STRTAB,
  DT_SYMENT,
  DT_SYMTAB,
  DT_TEXTREL,
  EM_BPF,
  ET_DYN,
  PF_R,
  PF_W,
  PF_X,
  PT_DYNAMIC,
  PT_LOAD,
  R_BPF_64_32,
  SHF_ALLOC,
  SHF_EXECINSTR,
  SHF_WRITE,
  SHT_DYNAMIC,
  SHT_DYNSYM,
  SHT_PROGBITS,
  SHT_REL,
  SHT_STRTAB,
  STB_GLOBAL,
  STT_FUNC,
} from "./elf-constants.ts";
import type { DynamicRelocation } from "./relocate.ts";

const EHDR_SIZE = 64;
const PHDR_SIZE = 56;
const SHDR_SIZE = 64;
const PHNUM = 2;
const DYNAMIC_SLOTS = 16;

/** File offsets of .text and .rodata for given sizes (needed before relocation). */
export function imageOffsets(textSize: number): { textFileOffset: number; rodataFileOffset: number } {
  const textFileOffset = alignUp(EHDR_SIZE + PHDR_SIZE * PHNUM, 8);
  return { textFileOffset, rodataFileOffset: alignUp(textFileOffset + textSize, 8) };
}

export interface SharedObjectParts {
  text: Buffer;
  rodata: Buffer;
  entryName: string;
  /** File offset of the entry function. */
  entryFileOffset: number;
  syscalls: string[];
  dynamicRelocations: DynamicRelocation[];
}

interface SectionHeader {
  name: string;
  type: number;
  flags: number;
  offset: number;
  size: number;
  mapped: boolean;
  link?: number;
  info?: number;
  align: number;
  entsize?: number;
}

function buildDynstr(names: string[]): { bytes: Buffer; offsets: number[] } {
  const offsets: number[] = [];
  let text = "\0";
  for (const n of names) {
    offsets.push(text.length);
    text += `${n}\0`;
  }
  return { bytes: Buffer.from(text, "latin1"), offsets };
}

/** Serialises the linked program into the bytes of an SBPF v0 .so. */
export function writeSharedObject(parts: SharedObjectParts): Buffer {
  const { text, rodata, syscalls, dynamicRelocations } = parts;
  const { textFileOffset, rodataFileOffset } = imageOffsets(text.length);

  // .dynsym: [0] null, [1..n] undefined syscall symbols, [n+1] the exported entrypoint
  const dynstr = buildDynstr([...syscalls, parts.entryName]);
  const dynsym = Buffer.alloc(24 * (syscalls.length + 2));
  syscalls.forEach((_, i) => {
    const o = (i + 1) * 24;
    dynsym.writeUInt32LE(dynstr.offsets[i]!, o);
    dynsym[o + 4] = STB_GLOBAL << 4;
  });
  {
    const o = (syscalls.length + 1) * 24;
    dynsym.writeUInt32LE(dynstr.offsets[syscalls.length]!, o);
    dynsym[o + 4] = (STB_GLOBAL << 4) | STT_FUNC;
    dynsym.writeUInt16LE(1, o + 6); // .text is section 1
    dynsym.writeBigUInt64LE(BigInt(parts.entryFileOffset), o + 8);
  }
  const relDyn = Buffer.alloc(16 * dynamicRelocations.length);
  dynamicRelocations.forEach((r, i) => {
    const symIndex = syscalls.indexOf(r.syscall) + 1;
    relDyn.writeBigUInt64LE(BigInt(r.fileOffset), i * 16);
    relDyn.writeBigUInt64LE((BigInt(symIndex) << 32n) | BigInt(R_BPF_64_32), i * 16 + 8);
  });

  const dynamicOffset = alignUp(rodataFileOffset + rodata.length, 8);
  const dynsymOffset = alignUp(dynamicOffset + 16 * DYNAMIC_SLOTS, 8);
  const dynstrOffset = dynsymOffset + dynsym.length;
  const relOffset = alignUp(dynstrOffset + dynstr.bytes.length, 8);
  const dynEntries: [number, number][] = [
    [DT_SYMTAB, dynsymOffset],
    [DT_STRTAB, dynstrOffset],
    [DT_STRSZ, dynstr.bytes.length],
    [DT_SYMENT, 24],
  ];
  if (relDyn.length > 0) {
    dynEntries.push([DT_REL, relOffset], [DT_RELSZ, relDyn.length], [DT_RELENT, 16], [DT_TEXTREL, 0]);
  }
  dynEntries.push([DT_NULL, 0]);
  const dynamic = Buffer.alloc(16 * dynEntries.length);
  dynEntries.forEach(([t, v], i) => {
    dynamic.writeBigUInt64LE(BigInt(t), i * 16);
    dynamic.writeBigUInt64LE(BigInt(v), i * 16 + 8);
  });

  const secs: SectionHeader[] = [
    { name: "", type: 0, flags: 0, offset: 0, size: 0, mapped: false, align: 0 },
  ];
  secs.push({
    name: ".text",
    type: SHT_PROGBITS,
    flags: SHF_ALLOC | SHF_EXECINSTR,
    offset: textFileOffset,
    size: text.length,
    mapped: true,
    align: 8,
  });
  if (rodata.length > 0) {
    secs.push({
      name: ".rodata",
      type: SHT_PROGBITS,
      flags: SHF_ALLOC,
      offset: rodataFileOffset,
      size: rodata.length,
      mapped: true,
      align: 8,
    });
  }
  const dynamicIndex = secs.length;
  const dynsymIndex = dynamicIndex + 1;
  const dynstrIndex = dynamicIndex + 2;
  secs.push({
    name: ".dynamic",
    type: SHT_DYNAMIC,
    flags: SHF_ALLOC | SHF_WRITE,
    offset: dynamicOffset,
    size: dynamic.length,
    mapped: true,
    align: 8,
    entsize: 16,
    link: dynstrIndex,
  });
  secs.push({
    name: ".dynsym",
    type: SHT_DYNSYM,
    flags: SHF_ALLOC,
    offset: dynsymOffset,
    size: dynsym.length,
    mapped: true,
    align: 8,
    entsize: 24,
    link: dynstrIndex,
    info: 1,
  });
  secs.push({
    name: ".dynstr",
    type: SHT_STRTAB,
    flags: SHF_ALLOC,
    offset: dynstrOffset,
    size: dynstr.bytes.length,
    mapped: true,
    align: 1,
  });
  if (relDyn.length > 0) {
    secs.push({
      name: ".rel.dyn",
      type: SHT_REL,
      flags: SHF_ALLOC,
      offset: relOffset,
      size: relDyn.length,
      mapped: true,
      align: 8,
      entsize: 16,
      link: dynsymIndex,
    });
  }
  const shstrtabOffset = relOffset + relDyn.length;
  const shstrIndex = secs.length;
  const shNames = [...secs.map((s) => s.name).slice(1), ".shstrtab"];
  const shstr = buildDynstr(shNames);
  secs.push({
    name: ".shstrtab",
    type: SHT_STRTAB,
    flags: 0,
    offset: shstrtabOffset,
    size: shstr.bytes.length,
    mapped: false,
    align: 1,
  });
  const nameOffset = (i: number): number => (i === 0 ? 0 : shstr.offsets[i - 1]!);
  const shOffset = alignUp(shstrtabOffset + shstr.bytes.length, 8);

  const f = Buffer.alloc(shOffset + SHDR_SIZE * secs.length);
  f.writeUInt32BE(0x7f454c46, 0);
  f[4] = 2; // ELFCLASS64
  f[5] = 1; // little endian
  f[6] = 1; // EV_CURRENT
  f.writeUInt16LE(ET_DYN, 16);
  f.writeUInt16LE(EM_BPF, 18);
  f.writeUInt32LE(1, 20);
  f.writeBigUInt64LE(BigInt(parts.entryFileOffset), 24);
  f.writeBigUInt64LE(BigInt(EHDR_SIZE), 32);
  f.writeBigUInt64LE(BigInt(shOffset), 40);
  f.writeUInt32LE(0, 48); // e_flags 0 => SBPF v0
  f.writeUInt16LE(EHDR_SIZE, 52);
  f.writeUInt16LE(PHDR_SIZE, 54);
  f.writeUInt16LE(PHNUM, 56);
  f.writeUInt16LE(SHDR_SIZE, 58);
  f.writeUInt16LE(secs.length, 60);
  f.writeUInt16LE(shstrIndex, 62);

  const phdr = (i: number, type: number, flags: number, off: number, size: number): void => {
    const o = EHDR_SIZE + i * PHDR_SIZE;
    f.writeUInt32LE(type, o);
    f.writeUInt32LE(flags, o + 4);
    f.writeBigUInt64LE(BigInt(off), o + 8);
    f.writeBigUInt64LE(BigInt(off), o + 16);
    f.writeBigUInt64LE(BigInt(off), o + 24);
    f.writeBigUInt64LE(BigInt(size), o + 32);
    f.writeBigUInt64LE(BigInt(size), o + 40);
    f.writeBigUInt64LE(8n, o + 48);
  };
  phdr(0, PT_LOAD, PF_R | PF_X, textFileOffset, relOffset + relDyn.length - textFileOffset);
  phdr(1, PT_DYNAMIC, PF_R | PF_W, dynamicOffset, dynamic.length);

  text.copy(f, textFileOffset);
  rodata.copy(f, rodataFileOffset);
  dynamic.copy(f, dynamicOffset);
  dynsym.copy(f, dynsymOffset);
  dynstr.bytes.copy(f, dynstrOffset);
  relDyn.copy(f, relOffset);
  shstr.bytes.copy(f, shstrtabOffset);
  secs.forEach((s, i) => {
    const o = shOffset + i * SHDR_SIZE;
    f.writeUInt32LE(nameOffset(i), o);
    f.writeUInt32LE(s.type, o + 4);
    f.writeBigUInt64LE(BigInt(s.flags), o + 8);
    f.writeBigUInt64LE(BigInt(s.mapped ? s.offset : 0), o + 16);
    f.writeBigUInt64LE(BigInt(s.offset), o + 24);
    f.writeBigUInt64LE(BigInt(s.size), o + 32);
    f.writeUInt32LE(s.link ?? 0, o + 40);
    f.writeUInt32LE(s.info ?? 0, o + 44);
    f.writeBigUInt64LE(BigInt(s.align), o + 48);
    f.writeBigUInt64LE(BigInt(s.entsize ?? 0), o + 56);
  });
  return f;
}
