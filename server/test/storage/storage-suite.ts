// The storage contract: every backend runs this same suite (restic's backend test, percona's
// storage suite). A backend file calls runStorageSuite with a factory for a fresh, empty storage.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  InvalidKeyError,
  ObjectNotFoundError,
  RangeNotSatisfiableError,
  StorageLimitError,
  StorageUnavailableError,
  UploadIncompleteError,
} from "../../src/storage/errors";
import { MiB, digestStream, patternBytes, patternStream, patternStreamDigest, readAll, waitForEmpty } from "./suite-helpers";
import type { Storage } from "../../src/storage/types";

export type StorageFixture = {
  storage: Storage;
  /** What unfinished writes left in the backend (FS temp files, S3 multipart uploads); must drain to []. */
  debris(): Promise<string[]>;
  /** A storage of this kind whose backend is unwritable or unreachable (FS: root not writable; S3: server stopped). */
  unavailableStorage(): Promise<Storage>;
  /**
   * Makes the next completion of staged upload `uploadId` fail part-way, as an outage would (S3:
   * the connection dies while a staged part is read back); the returned function ends the outage.
   * Absent where no outage can be caused here (the suite then skips the tests that need one).
   */
  breakCompletion?(uploadId: string): Promise<() => Promise<void>>;
  cleanup(): Promise<void>;
  /** Most RSS growth (MiB) a streamed 64 MiB put or get may cause; default 32, half the body. */
  streamingBoundMiB?: number;
};

/** Registers the shared contract tests for one backend; `createFixture` runs before every test. `canBreakCompletion`: its fixtures have breakCompletion. */
export function runStorageSuite(name: string, createFixture: () => Promise<StorageFixture>, options: { canBreakCompletion?: boolean } = {}): void {
  describe(`storage contract: ${name}`, () => {
    let fixture: StorageFixture;
    let storage: Storage;
    beforeEach(async () => {
      fixture = await createFixture();
      storage = fixture.storage;
    });
    afterEach(() => fixture.cleanup());

    const keys = async (prefix = "") => (await storage.list(prefix)).map((object) => object.key);
    const expectNothingAt = async (key: string) => {
      expect(await storage.stat(key)).toBeNull();
      expect(await keys()).not.toContain(key);
      expect(await waitForEmpty(() => fixture.debris())).toEqual([]);
    };

    test("round-trips empty, small and multi-megabyte bodies, from bytes and from streams", async () => {
      const small = new TextEncoder().encode('{"hello":"world"}');
      expect(await storage.put("t/empty-bytes", new Uint8Array(0))).toEqual({ size: 0 });
      expect(await storage.put("t/empty-stream", patternStream(0))).toEqual({ size: 0 });
      expect(await storage.put("t/small", small)).toEqual({ size: small.byteLength });
      expect(await storage.put("t/multi", patternStream(7 * MiB + 123, 7, { chunkSize: 100_000 }))).toEqual({ size: 7 * MiB + 123 });

      expect((await readAll(await storage.get("t/empty-bytes"))).byteLength).toBe(0);
      expect((await readAll(await storage.get("t/empty-stream"))).byteLength).toBe(0);
      expect(await readAll(await storage.get("t/small"))).toEqual(small);
      expect(await digestStream(await storage.get("t/multi"))).toEqual({
        sha256: patternStreamDigest(7 * MiB + 123, 7, 100_000),
        size: 7 * MiB + 123,
      });
      expect((await storage.stat("t/empty-stream"))?.size).toBe(0);
      expect((await storage.stat("t/multi"))?.size).toBe(7 * MiB + 123);
    });

    test("streams a 64 MiB body in and out with bounded memory", async () => {
      const size = 64 * MiB;
      // RSS after a forced GC, sampled every 4 MiB: what the backend retains, not garbage the
      // collector has yet to reach (without the GC, Bun's S3 put shows +40–55 MiB of garbage).
      const measure = async <T>(run: (sample: (bytes: number) => void) => Promise<T>) => {
        Bun.gc(true);
        const before = process.memoryUsage.rss();
        let peak = before;
        let sinceSample = 0;
        const sample = (bytes: number) => {
          sinceSample += bytes;
          if (sinceSample < 4 * MiB) return;
          sinceSample = 0;
          Bun.gc(true);
          peak = Math.max(peak, process.memoryUsage.rss());
        };
        const started = performance.now();
        const result = await run(sample);
        const seconds = (performance.now() - started) / 1000;
        return { result, mibPerSecond: size / MiB / seconds, growthMiB: (peak - before) / MiB };
      };
      const put = await measure((sample) => storage.put("big/part-000001", patternStream(size, 64, { chunkSize: MiB, onChunk: () => sample(MiB) })));
      const get = await measure(async (sample) => {
        const stream = await storage.get("big/part-000001");
        return digestStream(stream.pipeThrough(new TransformStream({ transform: (chunk, out) => (sample(chunk.byteLength), out.enqueue(chunk)) })));
      });
      expect(put.result).toEqual({ size });
      expect(get.result).toEqual({ sha256: patternStreamDigest(size, 64, MiB), size });
      const figures = (m: { mibPerSecond: number; growthMiB: number }) => `${m.mibPerSecond.toFixed(0)} MiB/s, RSS +${m.growthMiB.toFixed(0)} MiB`;
      console.log(`[${name}] 64 MiB streamed (GC every 4 MiB): put ${figures(put)}; get ${figures(get)}`);
      // Holding the body would retain 64 MiB; streaming retains a few buffers.
      const bound = fixture.streamingBoundMiB ?? 32;
      expect(put.growthMiB).toBeLessThan(bound);
      expect(get.growthMiB).toBeLessThan(bound);
    });

    test("an overwrite replaces the whole object", async () => {
      await storage.put("o/key", patternBytes(5000, 1));
      await storage.put("o/key", patternBytes(300, 2));
      expect(await readAll(await storage.get("o/key"))).toEqual(patternBytes(300, 2));
      expect((await storage.stat("o/key"))?.size).toBe(300);
      expect(await keys("o/")).toEqual(["o/key"]);
    });

    test("stat gives size and modification time, or null", async () => {
      const before = Date.now();
      await storage.put("s/one", patternBytes(42));
      const info = await storage.stat("s/one");
      expect(info).toMatchObject({ key: "s/one", size: 42 });
      // S3 reports whole seconds.
      expect(info!.modifiedAt.getTime()).toBeGreaterThan(before - 2000);
      expect(info!.modifiedAt.getTime()).toBeLessThan(Date.now() + 2000);
      expect(await storage.stat("s/none")).toBeNull();
      expect(await storage.stat("s")).toBeNull(); // a prefix is not an object
    });

    test("reads byte ranges with inclusive ends, clamping an end past the last byte", async () => {
      const data = patternBytes(1000, 3);
      await storage.put("r/obj", data);
      const range = async (start: number, end: number) => readAll(await storage.get("r/obj", { start, end }));
      expect(await range(0, 0)).toEqual(data.slice(0, 1));
      expect(await range(999, 999)).toEqual(data.slice(999));
      expect(await range(100, 199)).toEqual(data.slice(100, 200));
      expect(await range(0, 999)).toEqual(data);
      expect(await range(990, 5000)).toEqual(data.slice(990));

      const big = patternBytes(6 * MiB + 5, 4);
      await storage.put("r/big", big);
      expect(await readAll(await storage.get("r/big", { start: 300_000, end: 5 * MiB + 3 }))).toEqual(big.slice(300_000, 5 * MiB + 4));
    });

    test("rejects unsatisfiable ranges with RangeNotSatisfiableError", async () => {
      await storage.put("r/obj", patternBytes(1000));
      await storage.put("r/empty", new Uint8Array(0));
      for (const bad of [
        { start: 1000, end: 1000 },
        { start: 5000, end: 6000 },
        { start: 10, end: 9 },
        { start: -1, end: 5 },
        { start: 0.5, end: 5 },
      ]) {
        await expect(storage.get("r/obj", bad)).rejects.toBeInstanceOf(RangeNotSatisfiableError);
      }
      await expect(storage.get("r/empty", { start: 0, end: 0 })).rejects.toBeInstanceOf(RangeNotSatisfiableError);
    });

    test("get of a missing key rejects with ObjectNotFoundError", async () => {
      await expect(storage.get("m/none")).rejects.toBeInstanceOf(ObjectNotFoundError);
      await expect(storage.get("m/none", { start: 0, end: 10 })).rejects.toBeInstanceOf(ObjectNotFoundError);
      await storage.put("m/dir/file", patternBytes(10));
      await expect(storage.get("m/dir")).rejects.toBeInstanceOf(ObjectNotFoundError);
    });

    test("delete is idempotent", async () => {
      await storage.put("d/one", patternBytes(10));
      await storage.delete("d/one");
      expect(await storage.stat("d/one")).toBeNull();
      await expect(storage.get("d/one")).rejects.toBeInstanceOf(ObjectNotFoundError);
      await storage.delete("d/one");
      await storage.delete("d/never/existed");
      expect(await keys()).toEqual([]);
    });

    test("deletePrefix deletes exactly the objects under the prefix and counts them", async () => {
      for (const key of ["a/1", "a/2", "a/b/3", "ab/4", "a.txt"]) await storage.put(key, patternBytes(8));
      expect(await storage.deletePrefix("a/")).toBe(3);
      expect(await keys()).toEqual(["a.txt", "ab/4"]);
      expect(await storage.deletePrefix("a/")).toBe(0);
      expect(await storage.deletePrefix("nothing/")).toBe(0);
      await expect(storage.deletePrefix("")).rejects.toBeInstanceOf(InvalidKeyError);
      await storage.put("a/again", patternBytes(8)); // the emptied prefix is usable again
      expect(await keys("a/")).toEqual(["a/again"]);
    });

    test("list returns objects under the prefix, sorted by key, with sizes", async () => {
      const put = ["ab/x", "a/z", "a/b/c", "a/a", "a.txt", "b/1", "a/part-000010", "a/part-000002"];
      for (const [i, key] of put.entries()) await storage.put(key, patternBytes(i + 1));
      expect(await keys("a/")).toEqual(["a/a", "a/b/c", "a/part-000002", "a/part-000010", "a/z"]);
      expect(await keys("ab/")).toEqual(["ab/x"]);
      expect(await keys("a/part-")).toEqual(["a/part-000002", "a/part-000010"]);
      expect(await keys("a")).toEqual(["a.txt", "a/a", "a/b/c", "a/part-000002", "a/part-000010", "a/z", "ab/x"]);
      expect(await keys()).toEqual([...put].sort());
      expect(await keys("none/")).toEqual([]);
      const listed = await storage.list("a/");
      expect(listed.find((object) => object.key === "a/z")?.size).toBe(2);
      expect(listed.every((object) => object.modifiedAt instanceof Date && !Number.isNaN(object.modifiedAt.getTime()))).toBe(true);
    });

    test("a body over maxBytes fails with StorageLimitError and stores nothing", async () => {
      await storage.put("l/kept", patternBytes(100, 9));
      await expect(storage.put("l/kept", patternStream(3 * MiB), { maxBytes: 2 * MiB + 7 })).rejects.toBeInstanceOf(StorageLimitError);
      expect(await readAll(await storage.get("l/kept"))).toEqual(patternBytes(100, 9)); // old version intact
      await expect(storage.put("l/bytes", patternBytes(11), { maxBytes: 10 })).rejects.toBeInstanceOf(StorageLimitError);
      // Big enough for a multipart upload on S3: that upload must be aborted, not completed.
      await expect(storage.put("l/multi", patternStream(13 * MiB, 1, { chunkSize: MiB }), { maxBytes: 12 * MiB })).rejects.toBeInstanceOf(StorageLimitError);
      await expectNothingAt("l/bytes");
      await expectNothingAt("l/multi");
      expect(await storage.put("l/exact", patternStream(10), { maxBytes: 10 })).toEqual({ size: 10 });
    });

    test("a failing body rejects the put and leaves no object and no debris", async () => {
      const failure = new Error("client went away");
      await expect(storage.put("f/small", patternStream(MiB, 1, { failAfter: { bytes: 100_000, error: failure } }))).rejects.toBe(failure);
      await expect(storage.put("f/multi", patternStream(20 * MiB, 1, { chunkSize: MiB, failAfter: { bytes: 11 * MiB, error: failure } }))).rejects.toBe(
        failure,
      );
      await expectNothingAt("f/small");
      await expectNothingAt("f/multi");
    });

    test("aborting the signal rejects the put and leaves no object and no debris", async () => {
      const already = AbortSignal.abort(new Error("too late"));
      await expect(storage.put("x/already", patternBytes(10), { signal: already })).rejects.toThrow("too late");
      const controller = new AbortController();
      // The body stalls after 11 MiB, so the put is waiting on a read when the abort arrives.
      let stalled!: () => void;
      const reachedStall = new Promise<void>((resolve) => (stalled = resolve));
      const put = storage.put("x/stalled", patternStream(20 * MiB, 1, { chunkSize: MiB, stallAfter: 11 * MiB, onStall: () => stalled() }), {
        signal: controller.signal,
      });
      await reachedStall;
      controller.abort(new Error("upload cancelled"));
      await expect(put).rejects.toThrow("upload cancelled");
      await expectNothingAt("x/already");
      await expectNothingAt("x/stalled");
    });

    test("concurrent puts to different keys all land intact", async () => {
      const count = 12;
      await Promise.all(
        Array.from({ length: count }, (_, i) => storage.put(`c/k${String(i).padStart(2, "0")}`, patternStream(200_000 + i, i, { chunkSize: 16_384 }))),
      );
      expect(await keys("c/")).toHaveLength(count);
      for (let i = 0; i < count; i++) {
        expect((await digestStream(await storage.get(`c/k${String(i).padStart(2, "0")}`))).sha256).toBe(patternStreamDigest(200_000 + i, i, 16_384));
      }
    });

    test("rejects unsafe keys and prefixes with InvalidKeyError, before touching the backend", async () => {
      const unsafe = [
        "",
        "/etc/passwd",
        "../x",
        "a/../../b",
        "..",
        ".",
        "a/./b",
        "a//b",
        "a/",
        "a\\b",
        "a\0b",
        ".tmp/x",
        "a/.hidden",
        "a b",
        "é",
        "a".repeat(1025),
      ];
      for (const key of unsafe) {
        await expect(storage.put(key, patternBytes(1))).rejects.toBeInstanceOf(InvalidKeyError);
        await expect(storage.get(key)).rejects.toBeInstanceOf(InvalidKeyError);
        await expect(storage.stat(key)).rejects.toBeInstanceOf(InvalidKeyError);
        await expect(storage.delete(key)).rejects.toBeInstanceOf(InvalidKeyError);
      }
      for (const prefix of ["../", "/abs/", "a//", ".tmp/", "a\\"]) {
        await expect(storage.list(prefix)).rejects.toBeInstanceOf(InvalidKeyError);
        await expect(storage.deletePrefix(prefix)).rejects.toBeInstanceOf(InvalidKeyError);
      }
      const safe = "backups/0b0e2c1e-1c5f/k_2=3@x+y/part-000001.enc";
      await storage.put(safe, patternBytes(3));
      expect(await keys()).toEqual([safe]);
    });

    test("a staged upload becomes one object only when completed, parts in any order and repeatable", async () => {
      const partSize = 256 * 1024;
      const parts = [patternBytes(partSize, 1), patternBytes(partSize, 2), patternBytes(1000, 3)];
      const whole = new Uint8Array(2 * partSize + 1000);
      parts.forEach((part, i) => whole.set(part, i * partSize));
      await storage.writeUploadPart("upload1", 2, 2 * partSize, parts[2]!);
      await storage.writeUploadPart("upload1", 0, 0, patternStream(partSize, 1, { chunkSize: partSize }));
      await storage.writeUploadPart("upload1", 0, 0, parts[0]!); // sent again after a dropped connection
      await storage.writeUploadPart("upload1", 1, partSize, parts[1]!);
      expect(await keys()).toEqual([]);
      await expect(storage.completeUpload("upload1", "b/whole", whole.byteLength + 1)).rejects.toBeInstanceOf(UploadIncompleteError);
      expect(await keys()).toEqual([]);
      await storage.completeUpload("upload1", "b/whole", whole.byteLength, { fileName: "whole.bin" });
      expect(await keys()).toEqual(["b/whole"]);
      expect(await readAll(await storage.get("b/whole"))).toEqual(whole);
      await storage.abortUpload("upload1"); // already gone: nothing to do
      expect(await waitForEmpty(() => fixture.debris())).toEqual([]);
    });

    test("an aborted staged upload leaves nothing; an oversized part is refused", async () => {
      await storage.writeUploadPart("upload2", 0, 0, patternBytes(5000));
      await expect(storage.writeUploadPart("upload2", 1, 5000, patternBytes(5000), { maxBytes: 4000 })).rejects.toBeInstanceOf(StorageLimitError);
      await storage.abortUpload("upload2");
      await storage.abortUpload("upload2");
      await expect(storage.completeUpload("upload2", "b/none", 5000)).rejects.toBeInstanceOf(UploadIncompleteError);
      expect(await keys()).toEqual([]);
      expect(await waitForEmpty(() => fixture.debris())).toEqual([]);
    });

    test.skipIf(!options.canBreakCompletion)(
      "a completion the backend fails part-way is StorageUnavailableError, publishes nothing, and completes whole when asked again",
      async () => {
        // Two parts of 4 MiB: on S3 the object goes up as a multipart upload, whose first part is
        // in flight when reading the second staged part fails.
        const parts = [patternBytes(4 * MiB, 1), patternBytes(4 * MiB, 2), patternBytes(1000, 3)];
        const whole = new Uint8Array(8 * MiB + 1000);
        parts.forEach((part, i) => whole.set(part, i * 4 * MiB));
        for (const [i, part] of parts.entries()) await storage.writeUploadPart("upload3", i, i * 4 * MiB, part);
        const heal = await fixture.breakCompletion!("upload3");
        await expect(storage.completeUpload("upload3", "c/whole", whole.byteLength)).rejects.toBeInstanceOf(StorageUnavailableError);
        await heal();
        expect(await storage.stat("c/whole")).toBeNull();
        // The agent asks again once storage is back: the staged parts were kept for it.
        await storage.completeUpload("upload3", "c/whole", whole.byteLength);
        expect(await readAll(await storage.get("c/whole"))).toEqual(whole);
        expect(await waitForEmpty(() => fixture.debris())).toEqual([]);
      },
    );

    test("httpSource hands out the object, or a range of it, with its length", async () => {
      const bytes = patternBytes(300_000, 9);
      await storage.put("h/file", bytes);
      const fetchSource = async (range?: { start: number; end: number }): Promise<Uint8Array> => {
        const source = await storage.httpSource("h/file", range);
        if (source.kind === "blob") {
          expect(source.size).toBe(source.blob.size);
          return new Uint8Array(await source.blob.arrayBuffer());
        }
        const response = await fetch(source.url, range ? { headers: { range: `bytes=${range.start}-${range.end}` } } : {});
        expect(response.headers.get("content-length")).toBe(String(range ? range.end - range.start + 1 : bytes.byteLength));
        return new Uint8Array(await response.arrayBuffer());
      };
      expect(await fetchSource()).toEqual(bytes);
      expect(await fetchSource({ start: 1000, end: 1999 })).toEqual(bytes.subarray(1000, 2000));
      await expect(storage.httpSource("h/missing")).rejects.toBeInstanceOf(ObjectNotFoundError);
      await expect(storage.httpSource("h/file", { start: 300_000, end: 300_001 })).rejects.toBeInstanceOf(RangeNotSatisfiableError);
    });

    test("check() passes on a working backend", async () => {
      await storage.check();
      expect(await keys()).toEqual([]); // the probe leaves nothing behind
    });

    test("check() fails with StorageUnavailableError when the backend is unusable", async () => {
      const broken = await fixture.unavailableStorage();
      await expect(broken.check()).rejects.toBeInstanceOf(StorageUnavailableError);
    });

    test("writes to an unusable backend fail with StorageUnavailableError, not the backend's own error", async () => {
      const broken = await fixture.unavailableStorage();
      await expect(broken.put("a/object", patternBytes(1024))).rejects.toBeInstanceOf(StorageUnavailableError);
      await expect(broken.writeUploadPart("upload-1", 0, 0, patternBytes(1024))).rejects.toBeInstanceOf(StorageUnavailableError);
    });
  });
}
