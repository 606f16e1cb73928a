// What the server can check of a backup file's header without any key (docs/archive-format.md):
// its length, and that a replacement header (a rewrap after a key rotation) keeps every byte of the
// stored one except its key stanzas and MAC, so the file's data stays where it is and means the
// same. Whether the new stanzas open is for the agent's keys to find; the server cannot tell.
import { AppError, badRequest } from "../../lib/errors";

const MAGIC = Buffer.from([0x89, 0x44, 0x42, 0x56, 0x41, 0x55, 0x4c, 0x54]);
/** Magic, version, and version 2's u16 header length. */
export const HEADER_PREFIX_LENGTH = 12;
/** Version 2: bytes 0-25 are the fixed fields (magic, version, length, compression, payload kind, chunk size, created-at). */
const V2_FIXED_FIELDS = 26;
const V2_STANZAS = 27;
const MAC_LENGTH = 32;
const WRAP_KIND_MASTER_KEY = 0x01;
const MASTER_KEY_STANZA_LENGTH = 96;
const KEY_ID_LENGTH = 16;
const V2_MIN_LENGTH = V2_STANZAS + 3 + MAC_LENGTH;
export const MAX_HEADER_LENGTH = 65535;

/** The stored file's format version and header length, from its first 12 bytes; throws 409 for a file that is not a rewrappable backup. */
export function readStoredHeaderLength(prefix: Uint8Array): { version: number; length: number } {
  const bytes = Buffer.from(prefix);
  if (bytes.length < HEADER_PREFIX_LENGTH || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new AppError(409, "CONFLICT", "The stored file of this backup does not start with a DBVault header.");
  }
  const version = bytes.readUInt16BE(8);
  if (version === 1) return { version, length: 104 };
  const length = bytes.readUInt16BE(10);
  if (version !== 2 || length < V2_MIN_LENGTH) {
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
  const macOffset = header.length - MAC_LENGTH;
  const count = header.readUInt8(V2_FIXED_FIELDS);
  let offset = V2_STANZAS;
  let keyId: string | null = null;
  for (let i = 0; i < count; i++) {
    if (offset + 3 > macOffset) return null;
    const kind = header.readUInt8(offset);
    const size = header.readUInt16BE(offset + 1);
    if (offset + 3 + size > macOffset) return null;
    if (kind === WRAP_KIND_MASTER_KEY && size === MASTER_KEY_STANZA_LENGTH && keyId === null) {
      keyId = header.subarray(offset + 3, offset + 3 + KEY_ID_LENGTH).toString("hex");
    }
    offset += 3 + size;
  }
  return count > 0 && offset === macOffset ? keyId : null;
}
