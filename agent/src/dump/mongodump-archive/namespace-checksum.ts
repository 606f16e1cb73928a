// How the scanner checksums each namespace's documents. By default on the calling thread; the
// CRC offload (crc-offload.ts) checksums on a worker thread instead, so that `encrypt` can read,
// seal and write on one core while the other computes CRC-64, the largest single cost of sealing
// an archive (bench/README.md).
import { Crc64 } from "./crc64.ts";

export interface NamespaceChecksum {
  /** Feeds `bytes[start..end)` in stream order (a deferred checksum copies what it cannot read later). */
  update(bytes: Uint8Array, start?: number, end?: number): void;
  /**
   * Compares with the CRC stored in the namespace's end marker: true or false now, or undefined
   * when the answer comes later (the offload then fails its `finish` on a mismatch).
   */
  matches(storedCrc: bigint, offset: number): boolean | undefined;
}

/** Makes the checksum of one namespace. */
export type ChecksumFactory = (namespace: string) => NamespaceChecksum;

/** Checksums on the calling thread; never throws. */
export const inlineChecksums: ChecksumFactory = () => {
  const crc = new Crc64();
  return {
    update: (bytes, start, end) => void crc.update(bytes, start, end),
    matches: (storedCrc) => crc.digestInt64() === storedCrc,
  };
};
