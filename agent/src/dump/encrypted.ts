// The backup pipeline the daemon and the CLI use: dump → compress → encrypt into a
// `.enc.dbvault` byte stream, and back: ciphertext → verify/decrypt → decompress → restore.
import { availableParallelism } from "node:os";
import { PassThrough, Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type ArchiveHeader, type Compression, createDecryptStream, createEncryptStream, type DecryptOptions, type MasterKeys } from "../archive/index.ts";
import { countBytes, iterateBytes, waitForDrain } from "./byte-streams.ts";
import { abortedError, DumpError, throwIfAborted } from "./errors.ts";
import { type ArchiveSummary, summarizeArchive } from "./mongodump-archive/index.ts";
import { dumpDatabase, restoreArchive } from "./operations.ts";
import { copyFailed, createPrivateCopy, type PrivateCopy } from "./private-copy.ts";
import type { ByteSource, DumpOptions, DumpResult, RestoreOptions, RestoreResult } from "./types.ts";
import { pauseForTest } from "./test-pause.ts";

export interface BackupStreamOptions extends Omit<DumpOptions, "output"> {
  /** The master key; or, instead, `recipient`. */
  masterKey?: Uint8Array;
  /** A write-only agent's X25519 public key: nothing on this host can open the file then. */
  recipient?: Uint8Array;
  /** zstd unless told otherwise. */
  compression?: Compression;
  /** Plaintext bytes per encrypted chunk; the archive library's default (1 MiB) unless told otherwise. */
  chunkSize?: number;
  /** Compression threads (0: on the dump's own thread); backupCompressionThreads() unless told otherwise. */
  compressionThreads?: number;
}

export interface BackupStream {
  /** The `.enc.dbvault` bytes; read it to the end (it fails with the dump's error if the dump fails). */
  stream: Readable;
  /** The file header (key id, salt, compression, created-at). */
  header: ArchiveHeader;
  /** Settles once the dump has fed the encryptor everything; rejects with the dump's error. */
  result: Promise<DumpResult>;
}

/**
 * Starts a dump whose archive is compressed and encrypted as it is produced; memory stays
 * bounded whatever the database size. Throws InvalidKeyError/InvalidOptionsError at once; dump
 * failures reject `result` and destroy `stream`.
 */
export function createBackupStream(options: BackupStreamOptions): BackupStream {
  const encrypt = createEncryptStream({
    ...(options.recipient ? { recipient: options.recipient } : { masterKey: options.masterKey }),
    compression: options.compression ?? "zstd",
    compressionThreads: options.compressionThreads ?? backupCompressionThreads(),
    ...(options.chunkSize === undefined ? {} : { chunkSize: options.chunkSize }),
  });
  const { masterKey: _key, recipient: _recipient, compression: _compression, chunkSize: _chunkSize, compressionThreads: _threads, ...dumpOptions } = options;
  const result = dumpDatabase({ ...dumpOptions, output: encrypt });
  result.catch(() => undefined); // the stream reports the failure too; `result` is for whoever awaits it
  return { stream: encrypt, header: encrypt.header, result };
}

/**
 * Compression threads of the daemon's backups: two cores fewer than the machine has. A dump keeps
 * one core busy itself (the driver, the archive, encryption, the upload) and the database server,
 * often on the same machine, wants another: on 2 cores a compressing thread cost the daemon ~15 MB
 * of its 150 MB budget (bench/dump-memory.ts), so there blocks are compressed on the dump's own
 * thread. The output is the same either way. (`dbvault-agent dump`, a one-off command, uses one
 * thread fewer than the cores, as `encrypt` does: 1 GB from the test server in 11.2 s instead of
 * 14.5 s, at 143-148 MB peak instead of 138-142.)
 */
export function backupCompressionThreads(): number {
  return Math.max(0, availableParallelism() - 2);
}

export interface RestoreEncryptedOptions extends Omit<RestoreOptions, "input" | "inputBytes" | "expectedNamespaces"> {
  /** The keyring (or one master key): the backup's key id picks the key. */
  masterKey: MasterKeys;
  /** Identities (X25519 private keys) for backups a write-only agent sealed. */
  identities?: readonly Uint8Array[];
  /** The `.enc.dbvault` bytes (a download, a file). */
  input: ByteSource;
  /** Size of the `.enc.dbvault` file, when known, for the percentage. */
  inputBytes?: number;
  /**
   * Opens the same bytes again from the start (a file on disk): the backup is verified in a first
   * read and restored in a second. Without it the input is copied to a private temporary file as
   * it is verified, and restored from that copy.
   */
  reopen?: () => ByteSource;
  /** Where that copy goes; the system's temporary directory (TMPDIR) by default. */
  tempDir?: string;
  /** Hears what the whole-file check found (namespaces, counts, indexes) before the database is touched. */
  onVerified?: (summary: ArchiveSummary) => void;
}

/** What restore progress shows while the whole file is being checked. */
export const VERIFYING_LABEL = "Verifying backup…";

/**
 * Verifies, then restores, a `.enc.dbvault` backup. The whole file is authenticated and parsed
 * first (every chunk and the final tag, the right key, no truncation or trailing bytes, every
 * archive checksum) and only then is the database touched: a wrong key (WrongKeyError), a
 * damaged, cut or foreign file (the archive library's errors, MongodumpArchiveError) leave it
 * unchanged. The restore itself stages collections and swaps them in (see builtin/restore.ts).
 */
export async function restoreFromEncrypted(options: RestoreEncryptedOptions): Promise<RestoreResult> {
  const { masterKey, identities, input, inputBytes, reopen, tempDir, onVerified, ...rest } = options;
  throwIfAborted(options.signal);
  const copy = reopen ? undefined : await createPrivateCopy(tempDir);
  try {
    options.onNotice?.("verifying the whole backup before changing anything");
    options.onProgress?.({ current: 0, total: 0, percentage: 0, collection: VERIFYING_LABEL });
    const summary = await verifyEncrypted(countVerified(input, inputBytes, options), { masterKey, identities }, copy, options.signal);
    onVerified?.(summary);
    await pauseForTest("verified");
    const again = reopen ? reopen() : copy!.read();
    const decrypt = createDecryptStream({ masterKey, ...(identities ? { identities } : {}) });
    pipeline(Readable.from(iterateBytes(again)), decrypt).catch((error: Error) => decrypt.destroy(error));
    try {
      return await restoreArchive({ ...rest, input: decrypt, expectedNamespaces: summary.namespaces }, undefined);
    } finally {
      decrypt.destroy();
    }
  } finally {
    await copy?.remove();
  }
}

/** What a read-back also hands over: the documents of some namespaces (a backup's oplog window), as they pass. */
export interface ReadBackDocuments {
  documentsOf: ReadonlySet<string>;
  /** Called synchronously with bytes that may be reused after it returns. */
  onDocument: (namespace: string, bytes: Uint8Array) => void;
}

/**
 * Reads a whole `.enc.dbvault` backup without restoring it: every chunk authenticated, the
 * archive parsed and each namespace's CRC checked; answers its namespaces and counts. Throws the
 * archive library's errors (wrong key, damaged, cut or foreign file), MongodumpArchiveError, or
 * DumpError "aborted".
 */
export function verifyEncryptedBackup(
  input: ByteSource,
  masterKey: MasterKeys,
  signal?: AbortSignal,
  identities: readonly Uint8Array[] = [],
  documents?: ReadBackDocuments,
): Promise<ArchiveSummary> {
  return verifyEncrypted(input, { masterKey, identities }, undefined, signal, documents);
}

/** Reports the share of the file verified, at most every progress interval, when its size is known. */
function countVerified(input: ByteSource, inputBytes: number | undefined, options: RestoreEncryptedOptions): ByteSource {
  if (!inputBytes || !options.onProgress) return input;
  const interval = options.progressIntervalMs ?? 250;
  let read = 0;
  let last = performance.now();
  return countBytes(input, (count) => {
    read += count;
    const now = performance.now();
    if (now - last < interval) return;
    last = now;
    const percentage = Math.min(99.9, Math.round((read / inputBytes) * 1000) / 10);
    options.onProgress!({ current: 0, total: 0, percentage, collection: VERIFYING_LABEL });
  });
}

/** Decrypts and parses the whole backup, writing the ciphertext to `copy` as it passes; throws what is wrong with it. */
async function verifyEncrypted(
  input: ByteSource,
  keys: DecryptOptions,
  copy: PrivateCopy | undefined,
  signal: AbortSignal | undefined,
  documents?: ReadBackDocuments,
) {
  const decrypt = createDecryptStream(keys);
  const ciphertext = Readable.from(iterateBytes(input));
  const feeding = copy
    ? pipeline(ciphertext, new PassThrough({ transform: teeInto(copy.stream) }), decrypt).then(() => finishWriting(copy.stream))
    : pipeline(ciphertext, decrypt);
  feeding.catch((error: Error) => decrypt.destroy(error));
  // A cancel stops the reading at once: the input may never deliver another byte (a stalled
  // download, a pipe), and nothing was touched yet.
  const abort = () => decrypt.destroy(abortedError(signal));
  signal?.addEventListener("abort", abort, { once: true });
  // The decrypt stream paces collections (archive/memory-pacer.ts): unpaced, reading a large file
  // let the plaintext's garbage pile up to hundreds of MB.
  try {
    const summary = await summarizeArchive(decrypt, documents ?? {});
    await feeding;
    throwIfAborted(signal);
    return summary;
  } catch (error) {
    throwIfAborted(signal);
    // The copy's failure destroys the decrypt stream too; say what really went wrong.
    if (copy?.stream.errored) throw copyFailed(copy, copy.stream.errored);
    throw error;
  } finally {
    signal?.removeEventListener("abort", abort);
    decrypt.destroy();
    ciphertext.destroy();
  }
}

// Passes each chunk on once the copy took it. A copy that fails (a full disk) fails the
// verification: waiting for a 'drain' that never comes left the process with nothing to do, and
// it exited 0 in the middle of a restore.
function teeInto(copy: Writable) {
  return (chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null, data?: Buffer) => void) => {
    if (copy.errored) return done(copy.errored);
    if (copy.write(chunk)) return done(null, chunk);
    waitForDrain(copy).then(() => done(null, chunk), done);
  };
}

function finishWriting(stream: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    if (stream.errored) return reject(stream.errored);
    stream.once("error", reject);
    stream.end((error?: Error | null) => (error ? reject(error) : resolve()));
  });
}
