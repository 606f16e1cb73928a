// Compressed copies of the agent binaries (about 100 MB each, half that compressed), made once
// per build and process and kept in the data directory: compressing on every download would cost
// a core for a second or more per request, and a stored copy is sent with its length. The SHA-256
// of each copy's own bytes is kept in memory (the data directory is no more trusted than the
// binaries), so that a copy is checked as it is sent, as the binaries are; a copy left by an
// earlier process is made again.
import { createWriteStream, existsSync, statSync } from "node:fs";
import { mkdir, readdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { constants, createGzip, createZstdCompress } from "node:zlib";
import type { Logger } from "../../lib/logger";
import { shortDigest } from "./agent-binaries";

export type DownloadEncoding = "zstd" | "gzip";

/** The binary read for compressing is not the one its build recorded (altered in storage). */
export class AlteredBinaryError extends Error {
  constructor(
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`the agent binary read has SHA-256 ${actual}, not the ${expected} its build recorded`);
  }
}

const EXTENSIONS: Record<DownloadEncoding, string> = { zstd: "zst", gzip: "gz" };

/**
 * The encoding to send for an Accept-Encoding header: zstd when accepted (smaller and several
 * times faster to make), else gzip, else none. A `q=0` refuses an encoding.
 */
export function chooseEncoding(acceptEncoding: string | null): DownloadEncoding | null {
  const accepted = new Set<string>();
  for (const part of (acceptEncoding ?? "").toLowerCase().split(",")) {
    const [name, ...params] = part.split(";").map((piece) => piece.trim());
    const q = params.find((param) => param.startsWith("q="));
    if (name && !(q && Number(q.slice(2)) === 0)) accepted.add(name);
  }
  if (accepted.has("zstd")) return "zstd";
  if (accepted.has("gzip") || accepted.has("x-gzip")) return "gzip";
  return null;
}

function compressor(encoding: DownloadEncoding) {
  // zstd's default level 3 makes 105 MB into 50 MB in half a second; level 19 saves 9 MB more in 50 s.
  return encoding === "zstd" ? createZstdCompress({ params: { [constants.ZSTD_c_compressionLevel]: 3 } }) : createGzip({ level: 6 });
}

/** A compressed copy on disk and the SHA-256 of its bytes when it was made. */
export type CompressedCopy = { path: string; sha256: string };

/** Makes and finds compressed copies under `dir`, one per (SHA-256, encoding); old builds' copies are removed. */
export function createCompressedCopies(options: { dir: string; log?: Logger }) {
  const making = new Map<string, Promise<CompressedCopy>>();
  const made = new Map<string, CompressedCopy>();

  async function make(source: Blob, sha256: string, encoding: DownloadEncoding, path: string): Promise<CompressedCopy> {
    await mkdir(options.dir, { recursive: true, mode: 0o700 });
    const temporary = `${path}.${process.pid}.tmp`;
    const started = performance.now();
    let copy: CompressedCopy;
    try {
      // Hashed as it is read: a copy is kept only of the very bytes the build recorded, so a file
      // altered in storage is never compressed into a copy that would outlive its repair.
      const hasher = new Bun.CryptoHasher("sha256");
      const copyHasher = new Bun.CryptoHasher("sha256");
      await pipeline(
        Readable.fromWeb(source.stream() as never),
        hashingWith(hasher),
        compressor(encoding),
        hashingWith(copyHasher),
        createWriteStream(temporary, { mode: 0o600 }),
      );
      const actual = hasher.digest("hex");
      if (actual !== sha256) throw new AlteredBinaryError(sha256, actual);
      await rename(temporary, path);
      copy = { path, sha256: copyHasher.digest("hex") };
      made.set(path, copy);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    options.log?.info("compressed an agent binary for download", {
      sha256: shortDigest(sha256),
      encoding,
      bytes: statSync(path).size,
      seconds: Number(((performance.now() - started) / 1000).toFixed(1)),
    });
    return copy;
  }

  return {
    /**
     * The binary's compressed copy, made first when this process has not made it yet (once,
     * however many ask at a time). Throws AlteredBinaryError when the binary read is not the one
     * with this checksum.
     */
    async copyOf(source: Blob, sha256: string, encoding: DownloadEncoding): Promise<CompressedCopy> {
      const path = join(options.dir, `${sha256}.${EXTENSIONS[encoding]}`);
      const known = made.get(path);
      if (known && existsSync(path)) return known;
      let pending = making.get(path);
      if (!pending) {
        pending = make(source, sha256, encoding, path).finally(() => making.delete(path));
        making.set(path, pending);
      }
      return pending;
    },
    /** Removes the copies of binaries no longer offered (their checksums are not in `current`). */
    async prune(current: readonly string[]): Promise<void> {
      const names = await readdir(options.dir).catch(() => [] as string[]);
      for (const name of names) {
        const sha256 = name.split(".")[0]!;
        if (current.includes(sha256)) continue;
        made.delete(join(options.dir, name));
        await rm(join(options.dir, name), { force: true });
      }
    },
  };
}

export type CompressedCopies = ReturnType<typeof createCompressedCopies>;

/** A pass-through stream that feeds what goes through it to `hasher`. */
function hashingWith(hasher: Bun.CryptoHasher): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hasher.update(chunk);
      done(null, chunk);
    },
  });
}
