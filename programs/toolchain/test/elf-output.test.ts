// Structure of the SBPF v0 shared objects our linker writes, and the ELF reader's input checks.
import { describe, expect, it } from "vitest";
import { compileSources, isToolchainError, linkObjects, TOOLCHAIN_ERROR_CODES } from "../src/index.ts";
import { buildFixture, TOOLCHAIN_DIR } from "./helpers/build-fixture.ts";

interface Section {
  name: string;
  type: number;
  flags: bigint;
  addr: bigint;
  offset: bigint;
  size: bigint;
}

function readSections(so: Buffer): Section[] {
  const shoff = Number(so.readBigUInt64LE(40));
  const shnum = so.readUInt16LE(60);
  const shstrndx = so.readUInt16LE(62);
  const raw = Array.from({ length: shnum }, (_, i) => {
    const o = shoff + i * 64;
    return {
      nameOff: so.readUInt32LE(o),
      type: so.readUInt32LE(o + 4),
      flags: so.readBigUInt64LE(o + 8),
      addr: so.readBigUInt64LE(o + 16),
      offset: so.readBigUInt64LE(o + 24),
      size: so.readBigUInt64LE(o + 32),
    };
  });
  const strOff = Number(raw[shstrndx]!.offset);
  return raw.map((s) => {
    const start = strOff + s.nameOff;
    return { ...s, name: so.toString("latin1", start, so.indexOf(0, start)) };
  });
}

describe("SBPF v0 output", () => {
  it("is an identity-mapped ET_DYN for EM_BPF with e_flags 0 and the entrypoint exported", async () => {
    const { so, syscalls } = await buildFixture(["hello"]);
    expect(so.readUInt32BE(0)).toBe(0x7f454c46);
    expect(so.readUInt16LE(16)).toBe(3); // ET_DYN
    expect(so.readUInt16LE(18)).toBe(247); // EM_BPF
    expect(so.readUInt32LE(48)).toBe(0); // SBPF v0
    const secs = readSections(so);
    expect(secs.map((s) => s.name)).toEqual([
      "",
      ".text",
      ".rodata",
      ".dynamic",
      ".dynsym",
      ".dynstr",
      ".rel.dyn",
      ".shstrtab",
    ]);
    for (const s of secs.filter((x) => x.flags & 2n)) expect(s.addr, s.name).toBe(s.offset);
    const text = secs[1]!;
    const entry = so.readBigUInt64LE(24);
    expect(entry >= text.offset && entry < text.offset + text.size).toBe(true);
    // PT_LOAD covers text..rel.dyn, identity mapped
    expect(so.readUInt32LE(64)).toBe(1);
    expect(so.readBigUInt64LE(64 + 8)).toBe(text.offset);
    expect(so.readBigUInt64LE(64 + 16)).toBe(text.offset);
    const dynstr = secs.find((s) => s.name === ".dynstr")!;
    const names = so
      .toString("latin1", Number(dynstr.offset), Number(dynstr.offset + dynstr.size))
      .split("\0");
    expect(names).toEqual(["", ...syscalls, "entrypoint", ""]);
    // every .rel.dyn entry is R_BPF_64_32 on a `call -1` in .text
    const rel = secs.find((s) => s.name === ".rel.dyn")!;
    for (let o = Number(rel.offset); o < Number(rel.offset + rel.size); o += 16) {
      const at = Number(so.readBigUInt64LE(o));
      expect(Number(so.readBigUInt64LE(o + 8) & 0xffffffffn)).toBe(10);
      expect(so[at]).toBe(0x85);
      expect(so.readInt32LE(at + 4)).toBe(-1);
    }
  });

  it("links the same objects to the same bytes every time", async () => {
    const objects = await compileSources(
      ["test/fixtures/multi-a.c", "test/fixtures/multi-b.c", "c/libsol.c"],
      {
        cwd: TOOLCHAIN_DIR,
        includeDirs: ["c"],
      },
    );
    const inputs = objects.map((o) => ({ name: o.source, bytes: o.bytes }));
    expect(linkObjects(inputs).so.equals(linkObjects(inputs).so)).toBe(true);
  });
});

describe("linker input checks", () => {
  const errorOf = (fn: () => unknown): { code: number; message: string } => {
    try {
      fn();
    } catch (e) {
      if (isToolchainError(e)) return { code: e.code, message: e.message };
      throw e;
    }
    throw new Error("expected a ToolchainError");
  };

  it("rejects a file that is not ELF", () => {
    const r = errorOf(() =>
      linkObjects([
        { name: "notes.txt", bytes: Buffer.from("hello world, not an object file at all. ".repeat(3)) },
      ]),
    );
    expect(r).toEqual({
      code: TOOLCHAIN_ERROR_CODES.NOT_ELF,
      message: "notes.txt: not an ELF64 little-endian file",
    });
  });

  it("rejects an already linked .so as input", async () => {
    const { so } = await buildFixture(["hello"]);
    const r = errorOf(() => linkObjects([{ name: "hello.so", bytes: so }]));
    expect(r.code).toBe(TOOLCHAIN_ERROR_CODES.NOT_RELOCATABLE_BPF);
    expect(r.message).toContain("hello.so: not a relocatable eBPF object");
  });

  it("rejects a truncated object", async () => {
    const objects = await compileSources(["test/fixtures/hello.c"], {
      cwd: TOOLCHAIN_DIR,
      includeDirs: ["c"],
    });
    const whole = objects[0]!.bytes;
    const r = errorOf(() => linkObjects([{ name: "cut.o", bytes: whole.subarray(0, whole.length - 100) }]));
    expect(r.code).toBe(TOOLCHAIN_ERROR_CODES.MALFORMED_OBJECT);
    expect(r.message).toMatch(/^cut\.o: malformed object file/);
  });

  it("rejects a custom entry name that is not defined", async () => {
    const objects = await compileSources(["test/fixtures/hello.c"], {
      cwd: TOOLCHAIN_DIR,
      includeDirs: ["c"],
    });
    const r = errorOf(() => linkObjects([{ name: "hello.o", bytes: objects[0]!.bytes }], { entry: "start" }));
    expect(r.code).toBe(TOOLCHAIN_ERROR_CODES.NO_ENTRYPOINT);
  });
});
