// The backup pipeline the daemon and the CLI use: dump → compress → encrypt into a
// `.enc.dbvault` byte stream, and back: ciphertext → verify/decrypt → decompress → restore.
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type ArchiveHeader, type Compression, createDecryptStream, createEncryptStream } from "../archive/index.ts";
import { countBytes } from "./byte-streams.ts";
import { dumpDatabase, restoreArchive } from "./operations.ts";
import type { ByteSource, DumpOptions, DumpResult, RestoreOptions, RestoreResult } from "./types.ts";

export interface BackupStreamOptions extends Omit<DumpOptions, "output"> {
  masterKey: Uint8Array;
  /** zstd unless told otherwise. */
  compression?: Compression;
  /** Plaintext bytes per encrypted chunk; the archive library's default (1 MiB) unless told otherwise. */
  chunkSize?: number;
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
    masterKey: options.masterKey,
    compression: options.compression ?? "zstd",
    ...(options.chunkSize === undefined ? {} : { chunkSize: options.chunkSize }),
  });
  const { masterKey: _key, compression: _compression, chunkSize: _chunkSize, ...dumpOptions } = options;
  const result = dumpDatabase({ ...dumpOptions, output: encrypt });
  result.catch(() => undefined); // the stream reports the failure too; `result` is for whoever awaits it
  return { stream: encrypt, header: encrypt.header, result };
}

export interface RestoreEncryptedOptions extends Omit<RestoreOptions, "input" | "inputBytes"> {
  masterKey: Uint8Array;
  /** The `.enc.dbvault` bytes (a download, a file). */
  input: ByteSource;
  /** Size of the `.enc.dbvault` file, when known, for the percentage. */
  inputBytes?: number;
}

/**
 * Decrypts, verifies and restores a `.enc.dbvault` stream. The header and the first chunk are
 * authenticated, and the archive prelude parsed, before the database is touched: a wrong key
 * (WrongKeyError), a foreign or damaged file (the archive library's errors) leave it unchanged.
 * Later damage throws DumpError "restore-incomplete" whose cause is the archive error.
 */
export async function restoreFromEncrypted(options: RestoreEncryptedOptions): Promise<RestoreResult> {
  const decrypt = createDecryptStream({ masterKey: options.masterKey });
  let consumed = 0;
  const ciphertext = Readable.from(countBytes(options.input, (count) => (consumed += count)));
  pipeline(ciphertext, decrypt).catch((error: Error) => decrypt.destroy(error));
  const total = options.inputBytes;
  const fraction = total && total > 0 ? () => consumed / total : undefined;
  const { masterKey: _key, input: _input, inputBytes: _bytes, ...rest } = options;
  try {
    return await restoreArchive({ ...rest, input: decrypt }, fraction);
  } finally {
    decrypt.destroy();
    ciphertext.destroy();
  }
}
