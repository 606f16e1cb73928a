// The restore safety gate: nothing touches a database before the archive's prelude (header and
// every collection's metadata) has been read and parsed. For an encrypted backup that means the
// file header was authenticated and at least the first chunk decrypted and verified, so a wrong
// key, a foreign file, a damaged first chunk or bad metadata fail while the database is intact.
import { type ArchiveHeader, type CollectionMetadata, readMongodumpArchive } from "./mongodump-archive/index.ts";
import { iterateBytes } from "./byte-streams.ts";
import type { ByteSource } from "./types.ts";

export interface ArchivePrelude {
  header: ArchiveHeader;
  collections: CollectionMetadata[];
  /** The whole archive again from its first byte: the bytes read so far, then the rest of the input. */
  replay: AsyncIterable<Uint8Array>;
  /** Stops the input (e.g. the download) when the caller gives up before reading `replay`. */
  cancel(): Promise<void>;
}

/**
 * Reads a mongodump archive until its prelude is complete and returns it with a replay of the
 * whole stream. Keeps only the bytes read so far (the prelude plus one input chunk). Throws what
 * the input throws (e.g. the archive library's WrongKeyError) or MongodumpArchiveError, after
 * stopping the input.
 */
export async function readArchivePrelude(input: ByteSource): Promise<ArchivePrelude> {
  const iterator = iterateBytes(input)[Symbol.asyncIterator]();
  const seen: Uint8Array[] = [];
  // The prelude reader must not close the input when it stops early: the replay continues it.
  const recording: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => ({
      async next() {
        const step = await iterator.next();
        if (!step.done) seen.push(step.value);
        return step;
      },
      async return() {
        return { done: true, value: undefined };
      },
    }),
  };
  let header: ArchiveHeader | undefined;
  const collections: CollectionMetadata[] = [];
  const cancel = async () => {
    await iterator.return?.().catch(() => undefined);
  };
  try {
    for await (const event of readMongodumpArchive(recording)) {
      if (event.kind === "header") header = event.header;
      else if (event.kind === "collection") collections.push(event.metadata);
      else break;
    }
  } catch (error) {
    await cancel();
    throw error;
  }
  if (!header) throw new Error("unreachable: the archive reader yields a header first");
  async function* replay(): AsyncGenerator<Uint8Array> {
    try {
      while (seen.length > 0) yield seen.shift()!;
      for (;;) {
        const step = await iterator.next();
        if (step.done) return;
        yield step.value;
      }
    } finally {
      await cancel();
    }
  }
  return { header, collections, replay: replay(), cancel };
}
