// What an executable is, read from its own headers (ELF, PE, Mach-O), for checking agent builds
// for machines this one is not: the processor, the program loader (which C library), the Windows
// subsystem, and for macOS whether the code signature covers the file as it is (Apple silicon
// refuses to run a binary whose pages do not match their signed hashes).
import { createHash } from "node:crypto";

export type ElfInfo = { format: "elf"; machine: "x86-64" | "aarch64" | `other (${number})`; interpreter: string | null };
export type PeInfo = { format: "pe"; machine: "x86-64" | "arm64" | `other (${number})`; pe32plus: boolean; subsystem: "console" | "gui" | `other (${number})` };
export type MachOInfo = {
  format: "macho";
  cpu: "x86_64" | "arm64" | `other (${number})`;
  executable: boolean;
  /** null: no LC_CODE_SIGNATURE; else whether every code page matches its hash in the CodeDirectory. */
  signature: null | { pages: number; pageSize: number; hash: "sha256" | "sha1"; coversWholeFile: boolean; valid: boolean };
};

/** Reads the executable format of `bytes`; throws when it is none of the three. */
export function readExecutable(bytes: Uint8Array): ElfInfo | PeInfo | MachOInfo {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.readUInt32BE(0) === 0x7f454c46) return readElf(view);
  if (view.toString("latin1", 0, 2) === "MZ") return readPe(view);
  if (view.readUInt32LE(0) === 0xfeedfacf) return readMachO(view);
  throw new Error("not an ELF, PE or 64-bit Mach-O executable");
}

function readElf(view: Buffer): ElfInfo {
  if (view[4] !== 2 || view[5] !== 1) throw new Error("only 64-bit little-endian ELF is read");
  const machineCode = view.readUInt16LE(18);
  const machine = machineCode === 62 ? "x86-64" : machineCode === 183 ? "aarch64" : (`other (${machineCode})` as const);
  const phoff = Number(view.readBigUInt64LE(0x20));
  const phentsize = view.readUInt16LE(0x36);
  const phnum = view.readUInt16LE(0x38);
  let interpreter: string | null = null;
  for (let i = 0; i < phnum; i++) {
    const header = phoff + i * phentsize;
    if (view.readUInt32LE(header) !== 3) continue; // PT_INTERP
    const offset = Number(view.readBigUInt64LE(header + 8));
    const size = Number(view.readBigUInt64LE(header + 32));
    interpreter = view.toString("latin1", offset, offset + size).replace(/\0+$/, "");
  }
  return { format: "elf", machine, interpreter };
}

function readPe(view: Buffer): PeInfo {
  const pe = view.readUInt32LE(0x3c);
  if (view.toString("latin1", pe, pe + 4) !== "PE\0\0") throw new Error("an MZ file without a PE header");
  const machineCode = view.readUInt16LE(pe + 4);
  const optional = pe + 24;
  const subsystemCode = view.readUInt16LE(optional + 68);
  return {
    format: "pe",
    machine: machineCode === 0x8664 ? "x86-64" : machineCode === 0xaa64 ? "arm64" : (`other (${machineCode})` as const),
    pe32plus: view.readUInt16LE(optional) === 0x20b,
    subsystem: subsystemCode === 3 ? "console" : subsystemCode === 2 ? "gui" : (`other (${subsystemCode})` as const),
  };
}

const LC_CODE_SIGNATURE = 0x1d;
const CSMAGIC_EMBEDDED_SIGNATURE = 0xfade0cc0;
const CSMAGIC_CODEDIRECTORY = 0xfade0c02;

function readMachO(view: Buffer): MachOInfo {
  const cpuCode = view.readUInt32LE(4);
  const cpu = cpuCode === 0x01000007 ? "x86_64" : cpuCode === 0x0100000c ? "arm64" : (`other (${cpuCode})` as const);
  const executable = view.readUInt32LE(12) === 2; // MH_EXECUTE
  const ncmds = view.readUInt32LE(16);
  let offset = 32;
  let signature: MachOInfo["signature"] = null;
  for (let i = 0; i < ncmds; i++) {
    const cmd = view.readUInt32LE(offset);
    if (cmd === LC_CODE_SIGNATURE) signature = checkCodeSignature(view, view.readUInt32LE(offset + 8));
    offset += view.readUInt32LE(offset + 4);
  }
  return { format: "macho", cpu, executable, signature };
}

/** Checks the CodeDirectory's page hashes against the file (the signature's blobs are big-endian). */
function checkCodeSignature(view: Buffer, dataoff: number): NonNullable<MachOInfo["signature"]> {
  if (view.readUInt32BE(dataoff) !== CSMAGIC_EMBEDDED_SIGNATURE) throw new Error("LC_CODE_SIGNATURE does not point at a signature");
  const count = view.readUInt32BE(dataoff + 8);
  let directory = -1;
  for (let i = 0; i < count; i++) {
    const blob = dataoff + view.readUInt32BE(dataoff + 12 + i * 8 + 4);
    if (view.readUInt32BE(blob) === CSMAGIC_CODEDIRECTORY) {
      directory = blob;
      break;
    }
  }
  if (directory < 0) throw new Error("the signature has no CodeDirectory");
  const hashOffset = view.readUInt32BE(directory + 16);
  const codeSlots = view.readUInt32BE(directory + 28);
  const codeLimit = view.readUInt32BE(directory + 32);
  const hashSize = view[directory + 36]!;
  const hashType = view[directory + 37]!;
  const pageSize = 2 ** view[directory + 39]!;
  const algorithm = hashType === 2 ? "sha256" : hashType === 1 ? "sha1" : null;
  if (!algorithm) throw new Error(`unknown code signature hash type ${hashType}`);
  let valid = codeSlots === Math.ceil(codeLimit / pageSize);
  for (let slot = 0; valid && slot < codeSlots; slot++) {
    const page = view.subarray(slot * pageSize, Math.min((slot + 1) * pageSize, codeLimit));
    const expected = view.subarray(directory + hashOffset + slot * hashSize, directory + hashOffset + (slot + 1) * hashSize);
    valid = createHash(algorithm).update(page).digest().subarray(0, hashSize).equals(expected);
  }
  return { pages: codeSlots, pageSize, hash: algorithm, coversWholeFile: codeLimit === dataoff, valid };
}
