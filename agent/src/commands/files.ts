// Inputs and outputs of the file commands. Outputs are written to a hidden temporary file beside
// the target and renamed into place only on success, so a failed or interrupted run never leaves
// a half backup or half archive under the name asked for. "-" means stdin or stdout.
//
// Besides a stream, each side offers block I/O for the hot paths (encrypt, decrypt): a regular
// file is read with read(2) into the caller's buffer and written with one writev(2) per frame, as
// the command-line tools users compare us with do. On Bun 1.4, fs streams cost more than the
// encryption itself (bench/README.md).
import { randomBytes } from "node:crypto";
import { closeSync, createReadStream, openSync, readSync, writev, writevSync } from "node:fs";
import { rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { type Readable, Writable } from "node:stream";
import { CIPHER_OUTPUT_SPARE_BYTES, releaseWholeBuffer } from "../../../protocol/release-buffer";
import { CliError, EXIT } from "../cli-error.ts";
import type { CliIo } from "./context.ts";

export interface InputFile {
  /** The bytes as a stream (opened on first use). */
  readonly stream: Readable;
  /** Size in bytes, when the input is a regular file. */
  size: number | undefined;
  /** "stdin" or the path, for messages. */
  label: string;
  /** Opens a regular file again from its start (a restore reads it twice); absent for stdin. */
  reopen?: () => Readable;
  /**
   * Reads up to `length` bytes into `buffer` at `offset` (synchronously for a regular file);
   * 0 at the end. Use either this or `stream`, not both. Throws CliError on a read failure.
   */
  readInto(buffer: Uint8Array, offset: number, length: number): number | Promise<number>;
  /** Releases the input; never throws. */
  close(): void;
}

/** Opens a file or stdin ("-") for reading; throws CliError (exit 1) when the file cannot be read. */
export async function openInput(path: string, io: CliIo): Promise<InputFile> {
  if (path === "-") return streamInput(io.stdin, "stdin");
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
    if (!info.isFile()) return streamInput(createReadStream(path, { highWaterMark: 1024 * 1024 }), path);
    return fileInput(path, info.size, openSync(path, "r"));
  } catch (error) {
    throw describeFileError(error, path, "read");
  }
}

/** An InputFile over any stream of bytes (stdin, a pipe, a gunzip); block reads copy from it. */
export function streamInput(stream: Readable, label: string): InputFile {
  const chunks = pullChunks(stream);
  return {
    stream,
    size: undefined,
    label,
    readInto: (buffer, offset, length) => chunks.readInto(buffer, offset, length),
    close: () => stream.destroy(),
  };
}

function fileInput(path: string, size: number, fd: number): InputFile {
  const open = () => createReadStream(path, { highWaterMark: 1024 * 1024 });
  let stream: Readable | undefined;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    closeSync(fd);
  };
  return {
    get stream() {
      close();
      stream ??= open();
      return stream;
    },
    size,
    label: path,
    reopen: open,
    readInto(buffer, offset, length) {
      try {
        return readSync(fd, buffer, offset, length, null);
      } catch (error) {
        throw describeFileError(error, path, "read");
      }
    },
    close() {
      close();
      stream?.destroy();
    },
  };
}

// Copies a stream's chunks into the buffers the reader offers.
function pullChunks(stream: Readable) {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
  let current: Uint8Array | undefined;
  let at = 0;
  let ended = false;
  return {
    async readInto(buffer: Uint8Array, offset: number, length: number): Promise<number> {
      while (!ended && (current === undefined || at === current.length)) {
        const step = await iterator.next();
        if (step.done) ended = true;
        else [current, at] = [step.value, 0];
      }
      if (ended || current === undefined) return 0;
      const n = Math.min(length, current.length - at);
      buffer.set(current.subarray(at, at + n), offset);
      at += n;
      return n;
    },
  };
}

/**
 * How far encrypt's and decrypt's resident set may grow between garbage collections: 1 MiB of
 * ciphertext or plaintext dies with every frame. Measured on 1 GiB encrypts: no pacing 131-243
 * MB peak; 32 MiB 96-119 MB at up to 25 % more time (freed memory is faulted in again); 8 MiB
 * 71-99 MB at 25-50 % more.
 */
export const FILE_COMMAND_MEMORY_MARGIN = 32 * 1024 * 1024;

/** Writes buffers in order; a returned promise settles once the output took them. */
export type WriteOut = (buffers: readonly Uint8Array[]) => void | Promise<void>;

export interface OutputFile {
  /** The output as a stream (for pipelines); use either this or `write`, not both. */
  readonly stream: Writable;
  label: string;
  /** Writes the buffers in order (one writev for a file); a promise when stdout must drain first. */
  write(buffers: readonly Uint8Array[]): void | Promise<void>;
  /**
   * A file only: writes the buffers on one of Bun's pool threads while the caller goes on, and
   * resolves once they are written (throws CliError on I/O failure). The caller keeps at most one
   * call in flight, does not touch the buffers until it settled, and waits for it before `commit`
   * or `discard`.
   */
  writeBehind?(buffers: readonly Uint8Array[]): Promise<void>;
  /** Moves the finished file into place (after the stream finished); throws CliError on I/O failure. */
  commit(): Promise<void>;
  /** Removes what was written; never throws. */
  discard(): Promise<void>;
}

// Chunks smaller than this are left to the collector (the file header, a short last frame).
const RELEASE_MIN_BYTES = 64 * 1024;

/**
 * A stream into `output` for chunks nobody else holds (the encrypt stream's sealed frames): each
 * chunk written synchronously (to a file) is freed at once (protocol/release-buffer.ts), so the
 * collector need not run to give its memory back. Errors like `output.stream`.
 */
export function releasingStream(output: OutputFile): Writable {
  return new Writable({
    highWaterMark: 1024 * 1024,
    writev(entries, callback) {
      const chunks = entries.map((entry) => entry.chunk as Uint8Array);
      let waiting: void | Promise<void>;
      try {
        waiting = output.write(chunks);
      } catch (error) {
        callback(error as Error);
        return;
      }
      if (waiting) return void waiting.then(() => callback(), callback);
      for (const chunk of chunks) releaseWholeBuffer(chunk, RELEASE_MIN_BYTES, CIPHER_OUTPUT_SPARE_BYTES);
      callback();
    },
  });
}

/**
 * Prepares an output: stdout for "-", else a temporary file beside `path` (mode 0600: a
 * decrypted archive is plaintext data). Throws CliError when `path` exists and `force` is not set.
 */
export async function createOutput(path: string, io: CliIo, force: boolean): Promise<OutputFile> {
  if (path === "-") return stdoutOutput(io.stdout);
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) throw new CliError(`${path} is a directory`, EXIT.usage, "give a file name to --out");
  if (existing && !force) {
    throw new CliError(`${path} already exists`, EXIT.failure, "choose another name, or pass --force to replace it");
  }
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString("hex")}.partial`);
  let fd: number;
  try {
    fd = openSync(temporary, "wx", 0o600);
  } catch (error) {
    throw describeFileError(error, path, "write");
  }
  let stream: Writable | undefined;
  let open = true;
  const closeFd = () => {
    if (!open) return;
    open = false;
    closeSync(fd);
  };
  const write = (buffers: readonly Uint8Array[]) => {
    try {
      writeAllSync(fd, buffers);
    } catch (error) {
      throw describeFileError(error, path, "write");
    }
  };
  return {
    // The same writes as `write`, so that a failure (a full disk) names the file as well.
    get stream() {
      stream ??= new Writable({
        highWaterMark: 1024 * 1024,
        writev(chunks, callback) {
          try {
            write(chunks.map((entry) => entry.chunk as Uint8Array));
            callback();
          } catch (error) {
            callback(error as Error);
          }
        },
      });
      return stream;
    },
    label: path,
    write,
    writeBehind: (buffers) => writeAllBehind(fd, buffers).catch((error) => Promise.reject(describeFileError(error, path, "write"))),
    async commit() {
      closeFd();
      try {
        await rename(temporary, path);
      } catch (error) {
        await rm(temporary, { force: true }).catch(() => undefined);
        throw describeFileError(error, path, "write");
      }
    },
    async discard() {
      stream?.destroy();
      try {
        closeFd();
      } catch {
        // Nothing more to do: the temporary file goes anyway.
      }
      await rm(temporary, { force: true }).catch(() => undefined);
    },
  };
}

// writev(2) may write less than asked (a signal, a full pipe); continue where it stopped.
function writeAllSync(fd: number, buffers: readonly Uint8Array[]): void {
  let pending = buffers.filter((buffer) => buffer.length > 0);
  while (pending.length > 0) pending = dropWritten(pending, writevSync(fd, pending as Uint8Array[]));
}

function writeAllBehind(fd: number, buffers: readonly Uint8Array[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const step = (pending: Uint8Array[]) => {
      if (pending.length === 0) return resolve();
      writev(fd, pending, (error, written) => (error ? reject(error) : step(dropWritten(pending, written))));
    };
    step(buffers.filter((buffer) => buffer.length > 0));
  });
}

// What is left of `buffers` after a write took its first `written` bytes.
function dropWritten(buffers: readonly Uint8Array[], written: number): Uint8Array[] {
  const rest: Uint8Array[] = [];
  for (const buffer of buffers) {
    if (written >= buffer.length) written -= buffer.length;
    else {
      rest.push(written > 0 ? buffer.subarray(written) : buffer);
      written = 0;
    }
  }
  return rest;
}

// stdout as an output. A failure writing it (a reader that went away, a full disk behind a
// redirection) becomes the command's error instead of an unhandled 'error' event that crashed
// the process with a stack trace. stdout is never ended (later messages and the process need it).
function stdoutOutput(stdout: Writable): OutputFile {
  let failure: CliError | undefined;
  // Every error is heard (several writes can fail in turn); the first one is the one told.
  const failed = new Promise<never>((_resolve, reject) => {
    stdout.on("error", (error) => {
      failure ??= describeFileError(error, "stdout", "write");
      reject(failure);
    });
  });
  failed.catch(() => undefined);
  const waitForRoom = () => Promise.race([new Promise<void>((resolve) => stdout.once("drain", resolve)), failed]);
  const write = async (buffers: readonly Uint8Array[]) => {
    if (failure) throw failure;
    let accepting = true;
    for (const buffer of buffers) accepting = stdout.write(buffer);
    if (!accepting) await waitForRoom();
  };
  return {
    // Forwards writes with backpressure and finishes without closing stdout.
    stream: new Writable({
      highWaterMark: 1024 * 1024,
      write(chunk, _encoding, callback) {
        write([chunk]).then(() => callback(), callback);
      },
    }),
    label: "stdout",
    write,
    commit: async () => {
      if (failure) throw failure;
    },
    discard: async () => {},
  };
}

/** Turns a file system error into a CliError naming the file; never throws. */
export function describeFileError(error: unknown, path: string, doing: "read" | "write"): CliError {
  if (error instanceof CliError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const reasons: Record<string, string> = {
    ENOENT: doing === "read" ? "no such file" : "its directory does not exist",
    EACCES: "permission denied",
    EISDIR: "it is a directory",
    ENOSPC: "no space left on the device",
    EROFS: "read-only file system",
    EFBIG: "the file is larger than this system allows (a file size limit)",
    EPIPE: "its reader closed it",
  };
  const reason = (code && reasons[code]) ?? (error instanceof Error ? error.message : String(error));
  return new CliError(`cannot ${doing} ${path}: ${reason}`, EXIT.failure);
}
