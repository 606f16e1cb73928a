// The key id a backup was sealed with, read from the header at the front of its ciphertext (the
// file says which key opens it; the server records that fingerprint, never the key).
import { readArchiveHeader, TruncatedArchiveError } from "../../archive/index.ts";

const MAX_HEADER_BYTES = 65_535;

/** Passes the ciphertext through unchanged, telling `onKeyId` the header's key id once it is whole. */
export async function* noteKeyId(source: AsyncIterable<Uint8Array>, onKeyId: (keyId: string) => void): AsyncGenerator<Uint8Array> {
  let prefix: Buffer | null = Buffer.alloc(0);
  for await (const chunk of source) {
    if (prefix) {
      // A copy: the uploader may free the chunk's memory once it has taken its bytes.
      const seen: Buffer = Buffer.concat([prefix, chunk.subarray(0, MAX_HEADER_BYTES - prefix.length)]);
      prefix = seen;
      try {
        onKeyId(readArchiveHeader(seen).keyId);
        prefix = null;
      } catch (error) {
        if (!(error instanceof TruncatedArchiveError) || seen.length >= MAX_HEADER_BYTES) prefix = null;
      }
    }
    yield chunk;
  }
}
