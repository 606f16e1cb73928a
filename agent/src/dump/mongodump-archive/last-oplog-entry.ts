// Watches a mongodump archive stream for its last `.oplog` document: with `--oplog` that is the
// entry mongodump's window ended at (T1), which mongodump does not otherwise tell. Only lengths
// are read on the way (no checksums, no parsing of other documents), so it costs next to nothing
// beside the bytes passing through; the archive's own checks are the restore's and verify's.
import { BSON } from "bson";
import { MongodumpArchiveError } from "./errors.ts";
import { concatBytes, MAGIC_BYTES, OPLOG_NAMESPACE, readInt32LE, TERMINATOR } from "./format.ts";

type Step = "magic" | "prelude" | "block" | "after-eof" | "segment";

/** Feed every chunk in order; `lastOplogEntry` is the raw bytes of the last `.oplog` document seen. */
export class LastOplogEntryWatcher {
  lastOplogEntry: Uint8Array | undefined;
  #step: Step = "magic";
  #pending = new Uint8Array(0);
  #inOplog = false;
  // Bytes of a non-oplog document still to pass without being kept.
  #skip = 0;

  /** Throws MongodumpArchiveError when the structure is not a mongodump archive's. */
  write(chunk: Uint8Array): void {
    let at = 0;
    if (this.#skip > 0) {
      at = Math.min(this.#skip, chunk.length);
      this.#skip -= at;
      if (at === chunk.length) return;
    }
    let bytes = this.#pending.length > 0 ? concatBytes(this.#pending, chunk.subarray(at)) : chunk.subarray(at);
    let offset = 0;
    for (;;) {
      const unit = this.#step === "magic" ? MAGIC_BYTES.length : 4;
      if (bytes.length - offset < unit) break;
      if (this.#step === "magic") {
        if (MAGIC_BYTES.some((byte, index) => bytes[offset + index] !== byte))
          throw new MongodumpArchiveError("bad-magic", "the input is not a mongodump archive", {});
        offset += unit;
        this.#step = "prelude";
        continue;
      }
      const length = readInt32LE(bytes, offset);
      if (length === TERMINATOR) {
        offset += 4;
        // It ends the prelude, a segment, or an EOF header's block: a namespace header comes next.
        this.#step = "block";
        continue;
      }
      if (length < 5) throw new MongodumpArchiveError("invalid-length", `a document of the archive claims ${length} bytes`, {});
      const whole = bytes.length - offset >= length;
      if (this.#step === "segment" && !this.#inOplog) {
        // A data document: passed over, even when it ends in a later chunk.
        const here = Math.min(length, bytes.length - offset);
        offset += here;
        this.#skip = length - here;
        if (this.#skip > 0) break;
        continue;
      }
      if (!whole) break;
      const document = bytes.subarray(offset, offset + length);
      offset += length;
      if (this.#step === "segment") this.lastOplogEntry = document.slice();
      else if (this.#step === "block") {
        const header = BSON.deserialize(document);
        this.#inOplog = `${header.db}.${header.collection}` === OPLOG_NAMESPACE;
        this.#step = header.EOF === true ? "after-eof" : "segment";
      }
    }
    bytes = bytes.subarray(offset);
    this.#pending = bytes.length > 0 ? bytes.slice() : new Uint8Array(0);
  }
}
