// ELF64 and eBPF constants used by the linker.

/** SBPF v0 maps the ELF file at this VM address; data addresses are resolved against it. */
export const MM_PROGRAM_START = 0x1_0000_0000n;

export const ET_REL = 1;
export const ET_DYN = 3;
export const EM_BPF = 247;

export const SHT_NULL = 0;
export const SHT_PROGBITS = 1;
export const SHT_SYMTAB = 2;
export const SHT_STRTAB = 3;
export const SHT_RELA = 4;
export const SHT_DYNAMIC = 6;
export const SHT_NOBITS = 8;
export const SHT_REL = 9;
export const SHT_DYNSYM = 11;

export const SHF_WRITE = 1;
export const SHF_ALLOC = 2;
export const SHF_EXECINSTR = 4;

export const SHN_UNDEF = 0;
export const SHN_ABS = 0xfff1;
export const SHN_COMMON = 0xfff2;

export const STT_NOTYPE = 0;
export const STT_OBJECT = 1;
export const STT_FUNC = 2;
export const STT_SECTION = 3;
export const STB_LOCAL = 0;
export const STB_GLOBAL = 1;
export const STB_WEAK = 2;

export const R_BPF_NONE = 0;
export const R_BPF_64_64 = 1;
export const R_BPF_64_ABS64 = 2;
export const R_BPF_64_ABS32 = 3;
export const R_BPF_64_NODYLD32 = 4;
export const R_BPF_64_32 = 10;

export const DT_NULL = 0;
export const DT_STRTAB = 5;
export const DT_SYMTAB = 6;
export const DT_STRSZ = 10;
export const DT_SYMENT = 11;
export const DT_REL = 17;
export const DT_RELSZ = 18;
export const DT_RELENT = 19;
export const DT_TEXTREL = 22;

export const PT_LOAD = 1;
export const PT_DYNAMIC = 2;
export const PF_X = 1;
export const PF_W = 2;
export const PF_R = 4;

export const INSN_SIZE = 8;
export const OP_LDDW = 0x18;
export const OP_CALL = 0x85;
export const OP_CALLX = 0x8d;

/** Rounds `x` up to a multiple of `a` (a <= 1 means no alignment). */
export function alignUp(x: number, a: number): number {
  return a > 1 ? Math.ceil(x / a) * a : x;
}
