// The layout of a version 2 backup header (docs/archive-format.md) as far as it can be read
// without any key: its length and its key stanzas. The agent reads it before opening a file, the
// server before accepting a rewrapped header; what a stanza's body means is for whoever holds keys.

/** First 8 bytes of every DBVault file: 0x89 then "DBVAULT" (the high byte catches 7-bit damage). */
export const MAGIC = Uint8Array.of(0x89, 0x44, 0x42, 0x56, 0x41, 0x55, 0x4c, 0x54);
export const KEY_ID_LENGTH = 16;
export const HEADER_MAC_LENGTH = 32;
/** Bytes 10-11 hold the header's total length H, so it is known from the first 12 bytes. */
export const V2_LENGTH_PREFIX = 12;
/** Offset of the stanza count; the stanzas follow it and the 32-byte MAC ends the header. */
export const V2_STANZA_COUNT_OFFSET = 26;
export const V2_STANZAS_OFFSET = 27;
/** Kind byte, u16 body length. */
export const STANZA_HEAD_LENGTH = 3;
export const DATA_KEY_LENGTH = 32;
/** Per-wrap random salt of a master-key stanza: each wrap has its own key, so its nonce can be fixed. */
export const WRAP_SALT_LENGTH = 32;
/** Wrap kinds of version 2 stanzas. Append only: a value is never reused. */
export const WRAP_KIND_MASTER_KEY = 0x01;
/** The data key sealed to an X25519 public key (write-only agents). */
export const WRAP_KIND_X25519 = 0x02;
/** Master-key stanza body: key id ‖ wrap salt ‖ wrapped data key ‖ GCM tag. */
export const MASTER_KEY_STANZA_LENGTH = KEY_ID_LENGTH + WRAP_SALT_LENGTH + DATA_KEY_LENGTH + 16;
/** Readers refuse a smaller or larger header before reading it (the length is not authenticated yet). */
export const V2_MIN_HEADER_LENGTH = V2_STANZAS_OFFSET + STANZA_HEAD_LENGTH + HEADER_MAC_LENGTH;
export const V2_MAX_HEADER_LENGTH = 65535;

/** One key stanza as stored: its wrap kind and body. Unknown kinds are kept and skipped by readers. */
export interface KeyStanza {
  kind: number;
  body: Uint8Array;
}

/** The total header length a version 2 file's first 12 bytes give (not checked). */
export function headerLengthV2(prefix: Uint8Array): number {
  return (prefix[10]! << 8) | prefix[11]!;
}

/**
 * The key stanzas of a version 2 header (exactly its bytes, MAC included), or what is wrong with
 * them: none, one running past the MAC, or a gap before it. Structure only: nothing is authenticated.
 */
export function parseKeyStanzas(header: Uint8Array): { stanzas: KeyStanza[] } | { problem: string } {
  const macOffset = header.length - HEADER_MAC_LENGTH;
  if (macOffset < V2_STANZAS_OFFSET) return { problem: `header length ${header.length} is too small` };
  const count = header[V2_STANZA_COUNT_OFFSET]!;
  if (count === 0) return { problem: "it holds no key stanza" };
  const stanzas: KeyStanza[] = [];
  let offset = V2_STANZAS_OFFSET;
  for (let i = 0; i < count; i++) {
    if (offset + STANZA_HEAD_LENGTH > macOffset) return { problem: "its key stanzas overrun the header" };
    const bodyLength = (header[offset + 1]! << 8) | header[offset + 2]!;
    const end = offset + STANZA_HEAD_LENGTH + bodyLength;
    if (end > macOffset) return { problem: "its key stanzas overrun the header" };
    stanzas.push({ kind: header[offset]!, body: header.subarray(offset + STANZA_HEAD_LENGTH, end) });
    offset = end;
  }
  if (offset !== macOffset) return { problem: "its key stanzas do not fill the header" };
  return { stanzas };
}

/** The key id a master-key stanza names, or null for a stanza of another kind or size. */
export function masterKeyIdOf(stanza: KeyStanza): Uint8Array | null {
  if (stanza.kind !== WRAP_KIND_MASTER_KEY || stanza.body.length !== MASTER_KEY_STANZA_LENGTH) return null;
  return stanza.body.subarray(0, KEY_ID_LENGTH);
}
