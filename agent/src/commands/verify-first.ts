// `decrypt --verify-first`: authenticate (and decompress) the whole backup before writing a byte.
// Decrypting alone writes each chunk once it is authenticated, so a fault further on (a truncated
// download, a damaged chunk) comes after correct bytes were already written: into a file that is
// then removed, but into a pipe (`decrypt --out - | mongorestore --archive`) they are gone, and a
// pipeline without pipefail restores part of a backup. Verifying first reads the input twice; stdin
// cannot be read twice, so it is copied (still encrypted) into a private temporary file as it is
// verified, and decrypted from there.
import { closeSync, openSync, writeSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CliIo } from "./context.ts";
import { describeFileError, type InputFile, openInput } from "./files.ts";
import type { MasterKeys } from "../archive/index.ts";
import { openSealedFile } from "./open-sealed.ts";

/**
 * Verifies the whole of `inPath` ("-": stdin) with `masterKey`, writing nothing, then opens it
 * again for decrypting. Throws the archive library's typed errors when any chunk fails, and
 * CliError when the temporary copy cannot be written; removes the copy in every case.
 */
export async function openVerifiedInput(
  inPath: string,
  io: CliIo,
  masterKey: MasterKeys,
  identities: readonly Uint8Array[] = [],
): Promise<{ input: InputFile; release(): Promise<void> }> {
  if (inPath !== "-") {
    const first = await openInput(inPath, io);
    try {
      await openSealedFile({ input: first, write: () => {}, masterKey, identities });
    } finally {
      first.close();
    }
    const input = await openInput(inPath, io);
    return { input, release: async () => input.close() };
  }
  // 0700 folder, 0600 file: only this user can read the copy (it stays encrypted anyway).
  const folder = await mkdtemp(join(tmpdir(), "dbvault-decrypt-"));
  const copyPath = join(folder, "stdin.enc.dbvault");
  const removeCopy = () => rm(folder, { recursive: true, force: true });
  try {
    const stdin = await openInput("-", io);
    const fd = openSync(copyPath, "w", 0o600);
    try {
      await openSealedFile({ input: copying(stdin, fd, copyPath), write: () => {}, masterKey, identities });
    } finally {
      closeSync(fd);
      stdin.close();
    }
    const input = await openInput(copyPath, io);
    const label = "stdin";
    return { input: Object.assign(input, { label }), release: async () => (input.close(), await removeCopy()) };
  } catch (error) {
    await removeCopy();
    throw error;
  }
}

/** `input`, with every block read also written to `fd`. */
function copying(input: InputFile, fd: number, path: string): InputFile {
  const copy = (buffer: Uint8Array, offset: number, n: number) => {
    try {
      for (let done = 0; done < n; ) done += writeSync(fd, buffer, offset + done, n - done);
    } catch (error) {
      throw describeFileError(error, path, "write");
    }
    return n;
  };
  return {
    stream: input.stream,
    size: input.size,
    label: input.label,
    close: () => input.close(),
    readInto(buffer, offset, length) {
      const got = input.readInto(buffer, offset, length);
      return typeof got === "number" ? copy(buffer, offset, got) : got.then((n) => copy(buffer, offset, n));
    },
  };
}
