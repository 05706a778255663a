// Reads the parts of an ET_REL eBPF object that the linker needs: sections, symbols, relocations.
import { TOOLCHAIN_ERROR_CODES, ToolchainError } from "../errors.ts";
import { EM_BPF, ET_REL, SHF_EXECINSTR, SHT_NOBITS, SHT_REL, SHT_SYMTAB } from "./elf-constants.ts";

export interface ElfSection {
  index: number;
  name: string;
  type: number;
  flags: number;
  offset: number;
  size: number;
  link: number;
  info: number;
  align: number;
}

export interface ElfSymbol {
  name: string;
  type: number;
  bind: number;
  shndx: number;
  value: number;
  size: number;
}

export interface ElfRelocation {
  /** Offset inside the target section. */
  offset: number;
  type: number;
  symbolIndex: number;
}

/** One parsed relocatable object. */
export interface ObjectFile {
  /** Name used in error messages (usually the source path). */
  name: string;
  bytes: Buffer;
  sections: ElfSection[];
  symbols: ElfSymbol[];
  /** Relocations keyed by the index of the section they patch. */
  relocations: Map<number, ElfRelocation[]>;
}

function cString(b: Buffer, off: number): string {
  let end = off;
  while (end < b.length && b[end] !== 0) end++;
  return b.toString("latin1", off, end);
}

/** Bytes of a section's contents. */
export function sectionData(obj: ObjectFile, s: ElfSection): Buffer {
  return obj.bytes.subarray(s.offset, s.offset + s.size);
}

/**
 * Parses an ELF64 little-endian ET_REL object for EM_BPF.
 * @throws ToolchainError NOT_ELF / NOT_RELOCATABLE_BPF on anything else.
 */
export function readObjectFile(name: string, bytes: Buffer): ObjectFile {
  if (bytes.length < 64 || bytes.readUInt32BE(0) !== 0x7f454c46 || bytes[4] !== 2 || bytes[5] !== 1) {
    throw new ToolchainError(TOOLCHAIN_ERROR_CODES.NOT_ELF, `${name}: not an ELF64 little-endian file`);
  }
  if (bytes.readUInt16LE(16) !== ET_REL || bytes.readUInt16LE(18) !== EM_BPF) {
    throw new ToolchainError(
      TOOLCHAIN_ERROR_CODES.NOT_RELOCATABLE_BPF,
      `${name}: not a relocatable eBPF object (compile with clang -target bpfel -c)`,
    );
  }
  const malformed = (what: string): never => {
    throw new ToolchainError(
      TOOLCHAIN_ERROR_CODES.MALFORMED_OBJECT,
      `${name}: malformed object file (${what})`,
    );
  };
  const shoff = Number(bytes.readBigUInt64LE(40));
  const shentsize = bytes.readUInt16LE(58);
  const shnum = bytes.readUInt16LE(60);
  const shstrndx = bytes.readUInt16LE(62);
  if (shentsize !== 64 || shoff + shnum * 64 > bytes.length || shstrndx >= shnum)
    malformed("section header table");
  const raw: Omit<ElfSection, "name">[] = [];
  const nameOffsets: number[] = [];
  for (let i = 0; i < shnum; i++) {
    const o = shoff + i * shentsize;
    nameOffsets.push(bytes.readUInt32LE(o));
    raw.push({
      index: i,
      type: bytes.readUInt32LE(o + 4),
      flags: Number(bytes.readBigUInt64LE(o + 8)),
      offset: Number(bytes.readBigUInt64LE(o + 24)),
      size: Number(bytes.readBigUInt64LE(o + 32)),
      link: bytes.readUInt32LE(o + 40),
      info: bytes.readUInt32LE(o + 44),
      align: Number(bytes.readBigUInt64LE(o + 48)),
    });
  }
  for (const [i, s] of raw.entries()) {
    if (s.type !== SHT_NOBITS && s.offset + s.size > bytes.length)
      malformed(`section ${i} extends past the end`);
    if (s.flags & SHF_EXECINSTR && s.size % 8 !== 0)
      malformed(`code section ${i} is not a whole number of instructions`);
  }
  const shstr = raw[shstrndx];
  const sections: ElfSection[] = raw.map((s, i) => ({
    ...s,
    name: shstr ? cString(bytes, shstr.offset + (nameOffsets[i] ?? 0)) : "",
  }));

  const symbols: ElfSymbol[] = [];
  const symtab = sections.find((s) => s.type === SHT_SYMTAB);
  if (symtab) {
    const strtab = sections[symtab.link];
    if (!strtab || symtab.size % 24 !== 0) malformed("symbol table");
    for (let o = symtab.offset; o < symtab.offset + symtab.size; o += 24) {
      const info = bytes[o + 4] ?? 0;
      symbols.push({
        name: strtab ? cString(bytes, strtab.offset + bytes.readUInt32LE(o)) : "",
        type: info & 0xf,
        bind: info >> 4,
        shndx: bytes.readUInt16LE(o + 6),
        value: Number(bytes.readBigUInt64LE(o + 8)),
        size: Number(bytes.readBigUInt64LE(o + 16)),
      });
    }
  }

  const relocations = new Map<number, ElfRelocation[]>();
  for (const rs of sections) {
    if (rs.type !== SHT_REL) continue;
    const list: ElfRelocation[] = [];
    const target = sections[rs.info];
    if (!target || rs.size % 16 !== 0) malformed(`relocation section ${rs.name}`);
    for (let o = rs.offset; o < rs.offset + rs.size; o += 16) {
      const info = bytes.readBigUInt64LE(o + 8);
      const r = {
        offset: Number(bytes.readBigUInt64LE(o)),
        type: Number(info & 0xffffffffn),
        symbolIndex: Number(info >> 32n),
      };
      // a relocated instruction is at least 8 bytes; data relocations at least 4
      const minBytes = target!.flags & SHF_EXECINSTR ? 8 : 4;
      if (r.offset + minBytes > target!.size || r.symbolIndex >= symbols.length) {
        malformed(`relocation in ${rs.name}`);
      }
      list.push(r);
    }
    relocations.set(rs.info, list);
  }
  return { name, bytes, sections, symbols, relocations };
}
