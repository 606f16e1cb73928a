import { readFrameIndex } from "./chunk-crypto.ts";
import { ReorderedChunksError } from "./errors.ts";
import type { ArchiveHeader } from "./format.ts";
import { FrameReader } from "./frame-reader.ts";
import { HeaderAccumulator } from "./header-accumulator.ts";
import { readArchiveHeader } from "./header.ts";

/** What a key-less walk over a backup file found. */
export interface ArchiveInspection {
  /** The header as written; not authenticated (that needs the key). */
  header: ArchiveHeader;
  chunkCount: number;
  /** Bytes of (compressed) payload the chunks declare. */
  payloadBytes: number;
  fileBytes: number;
}

/**
 * Walks a whole file without the key: reads the header and checks the chunk framing (truncation,
 * trailing bytes, chunk indexes out of order, damaged frame headers). Throws the same ArchiveError
 * classes as decryption; a file that passes can still fail authentication, which needs the key.
 */
export async function inspectArchive(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<ArchiveInspection> {
  const headerInput = new HeaderAccumulator();
  let header: ArchiveHeader | undefined;
  let frames: FrameReader | undefined;
  let payloadBytes = 0;
  let fileBytes = 0;
  for await (const piece of source) {
    fileBytes += piece.length;
    let rest: Uint8Array = piece;
    if (!frames) {
      const taken = headerInput.take(piece);
      if (!taken) continue;
      header = readArchiveHeader(taken.headerBytes);
      rest = taken.rest;
      frames = new FrameReader(header.chunkSize, (frame) => {
        const claimed = readFrameIndex(frame.header);
        if (claimed !== frame.position) throw new ReorderedChunksError(frame.position, claimed);
        payloadBytes += frame.length;
      });
    }
    frames.write(rest);
  }
  if (!header || !frames) return headerInput.fail();
  frames.end();
  return { header, chunkCount: frames.framesRead, payloadBytes, fileBytes };
}
