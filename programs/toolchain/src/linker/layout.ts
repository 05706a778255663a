// Chooses which input sections go into the output (garbage-collecting unreferenced ones, which is what
// -ffunction-sections is for) and where each lands inside the output .text / .rodata.
import { TOOLCHAIN_ERROR_CODES, ToolchainError } from "../errors.ts";
import {
  alignUp,
  SHF_ALLOC,
  SHF_EXECINSTR,
  SHF_WRITE,
  SHN_ABS,
  SHN_COMMON,
  SHN_UNDEF,
  SHT_NOBITS,
  SHT_PROGBITS,
  SHT_RELA,
  STB_GLOBAL,
  STB_WEAK,
  STT_SECTION,
} from "./elf-constants.ts";
import type { ElfSection, ObjectFile } from "./elf-reader.ts";

export type OutputKind = "text" | "rodata";

export interface PlacedSection {
  objectIndex: number;
  section: ElfSection;
  kind: OutputKind;
  /** Offset inside the output section of its kind. */
  offset: number;
}

export interface GlobalSymbol {
  objectIndex: number;
  shndx: number;
  value: number;
  weak: boolean;
}

export interface SectionLayout {
  text: PlacedSection[];
  rodata: PlacedSection[];
  textSize: number;
  rodataSize: number;
  globals: Map<string, GlobalSymbol>;
  /** Looks up where an input section was placed (undefined if dropped). */
  placed(objectIndex: number, shndx: number): PlacedSection | undefined;
}

const key = (objectIndex: number, shndx: number): string => `${objectIndex}:${shndx}`;

function rejectMutableData(obj: ObjectFile): void {
  for (const s of obj.sections) {
    if (!(s.flags & SHF_ALLOC) || s.size === 0) continue;
    if (s.type === SHT_RELA) {
      throw new ToolchainError(
        TOOLCHAIN_ERROR_CODES.UNSUPPORTED_RELOCATION,
        `${obj.name}: RELA section ${s.name} not supported`,
      );
    }
    if (s.flags & SHF_WRITE || s.type === SHT_NOBITS) {
      const names = obj.symbols
        .filter((y) => y.shndx === s.index && y.type !== STT_SECTION && y.name)
        .map((y) => y.name);
      throw new ToolchainError(
        TOOLCHAIN_ERROR_CODES.MUTABLE_GLOBAL,
        `${obj.name}: mutable global data in section ${s.name} (${s.size} bytes; symbols: ${names.join(", ") || "?"}). ` +
          "SBPF programs cannot have writable globals: make them const, or keep state in account data, on the stack or on the heap",
      );
    }
  }
  for (const y of obj.symbols) {
    if (y.shndx === SHN_COMMON) {
      throw new ToolchainError(
        TOOLCHAIN_ERROR_CODES.MUTABLE_GLOBAL,
        `${obj.name}: mutable global '${y.name}' (common symbol). SBPF programs cannot have writable globals: make it const`,
      );
    }
  }
}

function isCandidate(s: ElfSection): OutputKind | undefined {
  if (!(s.flags & SHF_ALLOC) || s.size === 0) return undefined;
  if (s.flags & SHF_EXECINSTR) return "text";
  if (s.type === SHT_PROGBITS) return "rodata";
  return undefined;
}

function collectGlobals(objects: ObjectFile[]): Map<string, GlobalSymbol> {
  const globals = new Map<string, GlobalSymbol>();
  objects.forEach((obj, objectIndex) => {
    for (const y of obj.symbols) {
      if (y.bind !== STB_GLOBAL && y.bind !== STB_WEAK) continue;
      if (y.shndx === SHN_UNDEF || y.shndx === SHN_ABS || y.shndx === SHN_COMMON) continue;
      const sec = obj.sections[y.shndx];
      if (!sec || !isCandidate(sec)) continue;
      const weak = y.bind === STB_WEAK;
      const prev = globals.get(y.name);
      if (prev && !prev.weak && !weak) {
        const prevName = objects[prev.objectIndex]?.name ?? "?";
        throw new ToolchainError(
          TOOLCHAIN_ERROR_CODES.DUPLICATE_SYMBOL,
          `duplicate symbol '${y.name}' defined in ${prevName} and ${obj.name}`,
        );
      }
      if (!prev || (prev.weak && !weak))
        globals.set(y.name, { objectIndex, shndx: y.shndx, value: y.value, weak });
    }
  });
  return globals;
}

/** Sections reachable from the entry symbol through relocations. */
function reachableSections(
  objects: ObjectFile[],
  globals: Map<string, GlobalSymbol>,
  entry: GlobalSymbol,
): Set<string> {
  const seen = new Set<string>();
  const work: [number, number][] = [[entry.objectIndex, entry.shndx]];
  while (work.length > 0) {
    const [oi, si] = work.pop()!;
    const k = key(oi, si);
    if (seen.has(k)) continue;
    seen.add(k);
    const obj = objects[oi]!;
    for (const r of obj.relocations.get(si) ?? []) {
      const sym = obj.symbols[r.symbolIndex];
      if (!sym) continue;
      if (sym.shndx === SHN_UNDEF) {
        const g = globals.get(sym.name);
        if (g) work.push([g.objectIndex, g.shndx]);
      } else if (sym.shndx !== SHN_ABS && sym.shndx !== SHN_COMMON) {
        const target = obj.sections[sym.shndx];
        if (target && isCandidate(target)) work.push([oi, sym.shndx]);
      }
    }
  }
  return seen;
}

/**
 * Validates the inputs and lays out the kept sections: code into .text (8-byte aligned pieces), read-only
 * data into .rodata (each piece at its own alignment), in input order, so the result is deterministic.
 */
export function layoutSections(objects: ObjectFile[], entryName: string): SectionLayout {
  for (const obj of objects) rejectMutableData(obj);
  const globals = collectGlobals(objects);
  const entry = globals.get(entryName);
  if (!entry || isCandidate(objects[entry.objectIndex]!.sections[entry.shndx]!) !== "text") {
    throw new ToolchainError(
      TOOLCHAIN_ERROR_CODES.NO_ENTRYPOINT,
      `entry function '${entryName}' is not defined (define: u64 ${entryName}(const u8 *input))`,
    );
  }
  const keep = reachableSections(objects, globals, entry);
  const text: PlacedSection[] = [];
  const rodata: PlacedSection[] = [];
  let textSize = 0;
  let rodataSize = 0;
  const byKey = new Map<string, PlacedSection>();
  objects.forEach((obj, objectIndex) => {
    for (const section of obj.sections) {
      const kind = isCandidate(section);
      if (!kind || !keep.has(key(objectIndex, section.index))) continue;
      let offset: number;
      if (kind === "text") {
        offset = alignUp(textSize, 8);
        textSize = offset + section.size;
      } else {
        offset = alignUp(rodataSize, Math.max(1, section.align));
        rodataSize = offset + section.size;
      }
      const p: PlacedSection = { objectIndex, section, kind, offset };
      (kind === "text" ? text : rodata).push(p);
      byKey.set(key(objectIndex, section.index), p);
    }
  });
  if (textSize === 0) throw new ToolchainError(TOOLCHAIN_ERROR_CODES.NO_CODE, "no code to link");
  return {
    text,
    rodata,
    textSize: alignUp(textSize, 8),
    rodataSize,
    globals,
    placed: (oi, si) => byKey.get(key(oi, si)),
  };
}
