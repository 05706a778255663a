// Links relocatable eBPF objects from stock clang into one SBPF v0 shared object.
import { readObjectFile } from "./elf-reader.ts";
import { imageOffsets, writeSharedObject } from "./elf-writer.ts";
import { layoutSections } from "./layout.ts";
import { applyRelocations } from "./relocate.ts";
import { normaliseText } from "./sbpf-insn.ts";

export interface LinkInput {
  /** Name used in error messages (e.g. the source or object path). */
  name: string;
  bytes: Uint8Array;
}

export interface LinkOptions {
  /** Entry function name; default "entrypoint". */
  entry?: string;
}

export interface LinkResult {
  so: Buffer;
  textBytes: number;
  rodataBytes: number;
  syscalls: string[];
}

/**
 * Links ET_REL eBPF objects (clang -target bpfel -mcpu=v2 -c) into SBPF v0 ET_DYN bytes.
 * Unreferenced sections are dropped (so -ffunction-sections trims unused functions).
 * The output depends only on the input bytes and their order.
 * @throws ToolchainError with a message naming the object and symbol at fault
 */
export function linkObjects(inputs: LinkInput[], options: LinkOptions = {}): LinkResult {
  const entryName = options.entry ?? "entrypoint";
  const objects = inputs.map((i) =>
    readObjectFile(i.name, Buffer.from(i.bytes.buffer, i.bytes.byteOffset, i.bytes.byteLength)),
  );
  const layout = layoutSections(objects, entryName);
  const offsets = imageOffsets(layout.textSize);
  const images = {
    text: Buffer.alloc(layout.textSize),
    rodata: Buffer.alloc(layout.rodataSize),
    ...offsets,
  };
  for (const p of layout.text) {
    objects[p.objectIndex]!.bytes.copy(
      images.text,
      p.offset,
      p.section.offset,
      p.section.offset + p.section.size,
    );
  }
  for (const p of layout.rodata) {
    objects[p.objectIndex]!.bytes.copy(
      images.rodata,
      p.offset,
      p.section.offset,
      p.section.offset + p.section.size,
    );
  }
  const relocs = applyRelocations(objects, layout, images);
  normaliseText(images.text, images.textFileOffset);
  const entry = layout.globals.get(entryName)!;
  const entryPlaced = layout.placed(entry.objectIndex, entry.shndx)!;
  const so = writeSharedObject({
    text: images.text,
    rodata: images.rodata,
    entryName,
    entryFileOffset: images.textFileOffset + entryPlaced.offset + entry.value,
    syscalls: relocs.syscalls,
    dynamicRelocations: relocs.dynamicRelocations,
  });
  return { so, textBytes: layout.textSize, rodataBytes: layout.rodataSize, syscalls: relocs.syscalls };
}
