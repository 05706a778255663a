// Checks that .text only holds instructions the SBPF v0 VM has, and rewrites LLVM's encodings to SBPF v0's.
import { TOOLCHAIN_ERROR_CODES, ToolchainError } from "../errors.ts";
import { INSN_SIZE, OP_CALL, OP_CALLX, OP_LDDW } from "./elf-constants.ts";

function reject(where: string, what: string): never {
  throw new ToolchainError(TOOLCHAIN_ERROR_CODES.UNSUPPORTED_INSTRUCTION, `${where}: ${what}`);
}

function checkInstruction(op: number, off: number, imm: number, where: string): void {
  const cls = op & 7;
  const alu = cls === 4 || cls === 7;
  if (cls === 6) reject(where, `JMP32 instruction 0x${op.toString(16)} is not in SBPF v0 (use -mcpu=v2)`);
  if (op === 0xdb || op === 0xc3) reject(where, "atomic instruction is not in SBPF");
  if (alu && ((op & 0xf0) === 0x30 || (op & 0xf0) === 0x90) && off !== 0) {
    reject(where, "signed div/mod (cpu v4) is not in SBPF v0; use sdiv64() from u128.h");
  }
  if (alu && (op & 0xf0) === 0xb0 && off !== 0) reject(where, "movsx (cpu v4) is not in SBPF v0");
  if (cls === 1 && (op & 0xe0) === 0x80) reject(where, "sign-extending load (cpu v4) is not in SBPF v0");
  if (cls === 0 && op !== OP_LDDW && op !== 0x00) {
    reject(where, `legacy ld_abs/ld_ind 0x${op.toString(16)} is not in SBPF`);
  }
  if (op === OP_CALLX && !(imm >= 0 && imm <= 9)) reject(where, "unexpected callx encoding");
}

/**
 * Validates every instruction and normalises encodings in place:
 *  * `call imm`: src register cleared (LLVM marks pc-relative calls with src=1; SBPF v0 wants 0);
 *  * `callx`: LLVM >= 17 puts the target register in dst, SBPF v0 reads it from imm.
 * @param textFileOffset file offset of .text, for error messages
 */
export function normaliseText(text: Buffer, textFileOffset: number): void {
  for (let i = 0; i < text.length; i += INSN_SIZE) {
    const op = text[i]!;
    const regs = text[i + 1]!;
    const off = text.readInt16LE(i + 2);
    const imm = text.readInt32LE(i + 4);
    checkInstruction(op, off, imm, `.text+0x${(textFileOffset + i).toString(16)}`);
    if (op === OP_CALL) text[i + 1] = 0;
    if (op === OP_CALLX && imm === 0 && (regs & 0xf) !== 0) {
      text.writeInt32LE(regs & 0xf, i + 4);
      text[i + 1] = 0;
    }
    if (op === OP_LDDW) i += INSN_SIZE;
  }
}
