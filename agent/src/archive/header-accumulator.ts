import { TruncatedArchiveError } from "./errors.ts";
import { PREFIX_LENGTH } from "./format.ts";
import { checkMagicPrefix, measureHeader } from "./header.ts";

/**
 * Gathers the file header from arbitrary input pieces. Bad magic is reported on the first wrong
 * byte, an unknown version as soon as the 10-byte prefix is in, so a wrong file fails fast.
 * The header's length is learnt in steps (version 2 stores it after the prefix).
 */
export class HeaderAccumulator {
  #bytes = Buffer.alloc(0);
  #want = PREFIX_LENGTH;

  /** Feeds bytes; once the header is complete returns it with the bytes after it, else undefined. */
  take(input: Uint8Array): { headerBytes: Buffer; rest: Uint8Array } | undefined {
    let data = input;
    for (;;) {
      const missing = this.#want - this.#bytes.length;
      this.#bytes = Buffer.concat([this.#bytes, data.subarray(0, missing)]);
      data = data.subarray(missing);
      checkMagicPrefix(this.#bytes);
      if (this.#bytes.length < this.#want) return undefined;
      const want = measureHeader(this.#bytes);
      if (want === this.#bytes.length) return { headerBytes: this.#bytes, rest: data };
      this.#want = want;
    }
  }

  /** Called at end of input before the header completed: throws TruncatedArchiveError. */
  fail(): never {
    throw new TruncatedArchiveError("header", 0);
  }
}
