// Inputs and outputs of the file commands. Outputs are written to a hidden temporary file beside
// the target and renamed into place only on success, so a failed or interrupted run never leaves
// a half backup or half archive under the name asked for. "-" means stdin or stdout.
import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { type Readable, Writable } from "node:stream";
import { CliError, EXIT } from "./cli-error.ts";
import type { CliIo } from "./context.ts";

export interface InputFile {
  stream: Readable;
  /** Size in bytes, when the input is a regular file. */
  size: number | undefined;
  /** "stdin" or the path, for messages. */
  label: string;
  /** Opens a regular file again from its start (a restore reads it twice); absent for stdin. */
  reopen?: () => Readable;
}

/** Opens a file or stdin ("-") for reading; throws CliError (exit 1) when the file cannot be read. */
export async function openInput(path: string, io: CliIo): Promise<InputFile> {
  if (path === "-") return { stream: io.stdin, size: undefined, label: "stdin" };
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
    const open = () => createReadStream(path, { highWaterMark: 1024 * 1024 });
    return info.isFile()
      ? { stream: open(), size: info.size, label: path, reopen: open }
      : { stream: open(), size: undefined, label: path };
  } catch (error) {
    throw describeFileError(error, path, "read");
  }
}

export interface OutputFile {
  stream: Writable;
  label: string;
  /** Moves the finished file into place (after the stream finished); throws CliError on I/O failure. */
  commit(): Promise<void>;
  /** Removes what was written; never throws. */
  discard(): Promise<void>;
}

/**
 * Prepares an output: stdout for "-", else a temporary file beside `path` (mode 0600: a
 * decrypted archive is plaintext data). Throws CliError when `path` exists and `force` is not set.
 */
export async function createOutput(path: string, io: CliIo, force: boolean): Promise<OutputFile> {
  if (path === "-") {
    return { stream: wrapStdout(io.stdout), label: "stdout", commit: async () => {}, discard: async () => {} };
  }
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) throw new CliError(`${path} is a directory`, EXIT.usage, "give a file name to --out");
  if (existing && !force) {
    throw new CliError(`${path} already exists`, EXIT.failure, "choose another name, or pass --force to replace it");
  }
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString("hex")}.partial`);
  const stream = createWriteStream(temporary, { mode: 0o600, flags: "wx" });
  const opened = new Promise<void>((resolve, reject) => {
    stream.once("open", () => resolve());
    stream.once("error", reject);
  });
  try {
    await opened;
  } catch (error) {
    throw describeFileError(error, path, "write");
  }
  return {
    stream,
    label: path,
    async commit() {
      try {
        await rename(temporary, path);
      } catch (error) {
        await rm(temporary, { force: true }).catch(() => undefined);
        throw describeFileError(error, path, "write");
      }
    },
    async discard() {
      stream.destroy();
      await rm(temporary, { force: true }).catch(() => undefined);
    },
  };
}

// stdout must not be ended by a pipeline (later messages and the process need it); this
// forwards writes with backpressure and finishes without closing it.
function wrapStdout(stdout: Writable): Writable {
  return new Writable({
    highWaterMark: 1024 * 1024,
    write(chunk, _encoding, callback) {
      if (stdout.write(chunk)) callback();
      else stdout.once("drain", () => callback());
    },
  });
}

/** Turns a file system error into a CliError naming the file; never throws. */
export function describeFileError(error: unknown, path: string, doing: "read" | "write"): CliError {
  const code = (error as NodeJS.ErrnoException).code;
  const reasons: Record<string, string> = {
    ENOENT: doing === "read" ? "no such file" : "its directory does not exist",
    EACCES: "permission denied",
    EISDIR: "it is a directory",
    ENOSPC: "no space left on the device",
    EROFS: "read-only file system",
  };
  const reason = (code && reasons[code]) ?? (error instanceof Error ? error.message : String(error));
  return new CliError(`cannot ${doing} ${path}: ${reason}`, EXIT.failure);
}
