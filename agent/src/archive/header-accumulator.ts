import { TruncatedArchiveError } from "./errors.ts";
import { PREFIX_LENGTH } from "./format.ts";
import { checkMagicPrefix, findHeaderLength } from "./header.ts";

/**
 * Gathers the file header from arbitrary input pieces. Bad magic is reported on the first wrong
 * byte, an unknown version as soon as the 10-byte prefix is in, so a wrong file fails fast.
 */
export class HeaderAccumulator {
  #bytes = Buffer.alloc(0);
  #length = 0;

  /** Feeds bytes; once the header is complete returns it with the bytes after it, else undefined. */
  take(input: Uint8Array): { headerBytes: Buffer; rest: Uint8Array } | undefined {
    let data = input;
    for (;;) {
      const want = (this.#length || PREFIX_LENGTH) - this.#bytes.length;
      this.#bytes = Buffer.concat([this.#bytes, data.subarray(0, want)]);
      data = data.subarray(want);
      checkMagicPrefix(this.#bytes);
      if (this.#length === 0 && this.#bytes.length === PREFIX_LENGTH) {
        this.#length = findHeaderLength(this.#bytes);
        continue;
      }
      if (this.#length > 0 && this.#bytes.length === this.#length) {
        return { headerBytes: this.#bytes, rest: data };
      }
      return undefined;
    }
  }

  /** Called at end of input before the header completed: throws TruncatedArchiveError. */
  fail(): never {
    throw new TruncatedArchiveError("header", 0);
  }
}
