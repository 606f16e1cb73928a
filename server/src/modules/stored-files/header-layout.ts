// What the server can check of a backup file's header without any key (docs/archive-format.md):
// its length, and that a replacement header (a rewrap after a key rotation) keeps every byte of the
// stored one except its key stanzas and MAC, so the file's data stays where it is and means the
// same. Whether the new stanzas open is for the agent's keys to find; the server cannot tell.
import {
  headerLengthV2,
  MAGIC,
  masterKeyIdOf,
  parseKeyStanzas,
  V2_LENGTH_PREFIX,
  V2_MAX_HEADER_LENGTH,
  V2_MIN_HEADER_LENGTH,
  V2_STANZA_COUNT_OFFSET,
} from "@protocol/archive-header-v2";
import { AppError, badRequest } from "../../lib/errors";

/** Magic, version, and version 2's u16 header length. */
export const HEADER_PREFIX_LENGTH = V2_LENGTH_PREFIX;
/** Version 2: the bytes before the stanza count are the fixed fields (magic, version, length, compression, payload kind, chunk size, created-at). */
const V2_FIXED_FIELDS = V2_STANZA_COUNT_OFFSET;
export const MAX_HEADER_LENGTH = V2_MAX_HEADER_LENGTH;

/** The stored file's format version and header length, from its first 12 bytes; throws 409 for a file that is not a rewrappable backup. */
export function readStoredHeaderLength(prefix: Uint8Array): { version: number; length: number } {
  const bytes = Buffer.from(prefix);
  if (bytes.length < HEADER_PREFIX_LENGTH || !bytes.subarray(0, MAGIC.length).equals(Buffer.from(MAGIC))) {
    throw new AppError(409, "CONFLICT", "The stored file of this backup does not start with a DBVault header.");
  }
  const version = bytes.readUInt16BE(8);
  if (version === 1) return { version, length: 104 };
  const length = headerLengthV2(bytes);
  if (version !== 2 || length < V2_MIN_HEADER_LENGTH) {
    throw new AppError(409, "CONFLICT", `The stored file of this backup has a header this server does not know (format version ${version}).`);
  }
  return { version, length };
}

/**
 * Checks a replacement for the stored version 2 header: the same length, the same fixed fields,
 * key stanzas that fill it, one of them a master-key stanza. Returns the key id that stanza names.
 * Throws 409 for a version 1 file (its key is not wrapped) and 400 for a replacement that differs
 * in any other way.
 */
export function checkReplacementHeader(stored: Uint8Array, replacement: Uint8Array): { keyId: string } {
  const old = Buffer.from(stored);
  const next = Buffer.from(replacement);
  if (old.readUInt16BE(8) === 1) {
    throw new AppError(
      409,
      "CONFLICT",
      "This backup is in format version 1, whose data key is not wrapped: its header cannot be rewrapped. It stays readable with the key that made it.",
    );
  }
  if (next.length !== old.length) {
    throw badRequest(`The new header must be exactly ${old.length} bytes, like the stored one (got ${next.length}).`);
  }
  if (!next.subarray(0, V2_FIXED_FIELDS).equals(old.subarray(0, V2_FIXED_FIELDS))) {
    throw badRequest("The new header changes more than its key stanzas: its format, compression, chunk size and creation time must stay as stored.");
  }
  const keyId = findMasterKeyId(next);
  if (!keyId) throw badRequest("The new header's key stanzas are malformed: they must fill the header and include one master-key stanza.");
  return { keyId };
}

/** The key id of the first master-key stanza of a version 2 header, or null when the stanzas do not parse. */
export function findMasterKeyId(header: Buffer): string | null {
  const parsed = parseKeyStanzas(header);
  if ("problem" in parsed) return null;
  const keyId = parsed.stanzas.map(masterKeyIdOf).find((id) => id !== null);
  return keyId ? Buffer.from(keyId).toString("hex") : null;
}
