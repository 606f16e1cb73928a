// Adds an oplog namespace to a mongodump archive as it streams by, for `mongodump --db`, which
// cannot take `--oplog`: the `.oplog` entry goes into the prelude just before its terminator (the
// prelude is small and comes first), the archive's bytes pass on unchanged, and once they end the
// entries follow in `.oplog` segments closed by their EOF header, as `mongodump --oplog` writes
// them last. Only lengths are read on the way: the documents themselves are not parsed.
import { encodeCollectionEntry, encodeNamespaceHeader } from "./block-codec.ts";
import { Crc64 } from "./crc64.ts";
import { MongodumpArchiveError } from "./errors.ts";
import { concatBytes, MAGIC_BYTES, readInt32LE, TERMINATOR, TERMINATOR_BYTES } from "./format.ts";

// mongodump cuts a namespace's run of documents into segments of about this size.
const MAX_SEGMENT_BYTES = 16 * 1024 * 1024;

/**
 * Yields `archive` with the `.oplog` namespace added; `readEntries` is called once the archive has
 * ended and yields the entries in batches; what it returns is returned. Throws
 * MongodumpArchiveError when the archive's prelude is not whole and well-formed, or what either
 * input throws.
 */
export async function* addOplogNamespace<T>(
  archive: AsyncIterable<Uint8Array>,
  readEntries: () => AsyncGenerator<Uint8Array[], T, undefined>,
): AsyncGenerator<Uint8Array, T, undefined> {
  let prelude: Uint8Array | undefined = new Uint8Array(0);
  for await (const chunk of archive) {
    if (prelude === undefined) {
      yield chunk;
      continue;
    }
    prelude = concatBytes(prelude, chunk);
    const end = findPreludeTerminator(prelude);
    if (end === undefined) continue;
    yield prelude.subarray(0, end);
    yield encodeCollectionEntry({ db: "", collection: "oplog" });
    yield prelude.subarray(end);
    prelude = undefined;
  }
  if (prelude !== undefined) throw new MongodumpArchiveError("truncated", "the archive ended inside its prelude", {});
  const crc = new Crc64();
  let segmentBytes = 0;
  yield encodeNamespaceHeader("", "oplog");
  const entries = readEntries();
  let step = await entries.next();
  for (; !step.done; step = await entries.next()) {
    for (const entry of step.value) {
      if (segmentBytes > 0 && segmentBytes + entry.length > MAX_SEGMENT_BYTES) {
        yield TERMINATOR_BYTES;
        yield encodeNamespaceHeader("", "oplog");
        segmentBytes = 0;
      }
      crc.update(entry, 0, entry.length);
      segmentBytes += entry.length;
      yield entry;
    }
  }
  yield TERMINATOR_BYTES;
  yield encodeNamespaceHeader("", "oplog", crc.digestInt64());
  yield TERMINATOR_BYTES;
  return step.value;
}

// The offset of the prelude's terminator (after the magic number, the header and the collection
// entries, each a BSON document led by its length), or undefined when it has not arrived yet.
function findPreludeTerminator(bytes: Uint8Array): number | undefined {
  if (bytes.length < MAGIC_BYTES.length) return undefined;
  if (MAGIC_BYTES.some((byte, index) => bytes[index] !== byte)) {
    throw new MongodumpArchiveError("bad-magic", "the input is not a mongodump archive (wrong magic number)", {});
  }
  let offset = MAGIC_BYTES.length;
  while (offset + 4 <= bytes.length) {
    const length = readInt32LE(bytes, offset);
    if (length === TERMINATOR) return offset;
    if (length < 5) throw new MongodumpArchiveError("invalid-length", "the archive's prelude holds a malformed document", {});
    offset += length;
  }
  return undefined;
}
