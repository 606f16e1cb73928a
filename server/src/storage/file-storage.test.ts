import { afterEach, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createStorage, FileStorage, InvalidKeyError } from ".";
import { runStorageSuite } from "../../test/storage/storage-suite";
import { patternBytes, readAll } from "../../test/storage/suite-helpers";
import { waitUntil } from "../../../testkit/wait-until";

const made: string[] = [];
async function makeTempDir() {
  const dir = await mkdtemp(join(tmpdir(), "dbvault-fs-storage-"));
  made.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

runStorageSuite("filesystem", async () => {
  const dir = await makeTempDir();
  const root = join(dir, "backups"); // not created yet: the backend makes it on first write
  const storage = createStorage(`file://${root}`);
  return {
    storage,
    debris: async () => [...(await readdir(join(root, ".tmp")).catch(() => [])), ...(await readdir(join(root, ".uploads")).catch(() => []))],
    async unavailableStorage() {
      // A regular file where a directory should be: no user (root included) can write below it.
      await writeFile(join(dir, "not-a-dir"), "x");
      return createStorage(`file://${join(dir, "not-a-dir", "backups")}`);
    },
    // No breakCompletion: the tests run as root, whom no permission stops, and a file in the way
    // of the object is a key clash (InvalidKeyError), not an outage; failing the disk mid-rename
    // would take a mount of its own. Completion turns fs failures into StorageUnavailableError in
    // one place (unavailableOnFsFailure), as put does, which the tests above cover.
    cleanup: async () => {},
  };
});

describe("filesystem storage", () => {
  test("removes temp files older than an hour at start and keeps fresh ones", async () => {
    const root = await makeTempDir();
    await mkdir(join(root, ".tmp"));
    const stale = join(root, ".tmp", "crashed.part");
    const fresh = join(root, ".tmp", "in-flight.part");
    await writeFile(stale, "half an object");
    await writeFile(fresh, "being written");
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await utimes(stale, twoHoursAgo, twoHoursAgo);

    const storage = new FileStorage(root);
    await storage.ready;
    expect(await readdir(join(root, ".tmp"))).toEqual(["in-flight.part"]);
    expect(await storage.list("")).toEqual([]); // temp files are never objects
  });

  test("stores objects as plain files under the root and prunes emptied directories", async () => {
    const root = await makeTempDir();
    const storage = createStorage(`file://${root}`);
    await storage.put("backups/u1/b1/part-000001", patternBytes(10));
    await storage.put("backups/u1/b2/part-000001", patternBytes(10));
    expect((await stat(join(root, "backups", "u1", "b1", "part-000001"))).size).toBe(10);

    expect(await storage.deletePrefix("backups/u1/b1/")).toBe(1);
    expect(await readdir(join(root, "backups", "u1"))).toEqual(["b2"]);
    await storage.delete("backups/u1/b2/part-000001");
    expect(await readdir(root)).toEqual([".tmp"]); // the root and the temp area stay
  });

  test("a reader keeps the version it opened while the key is overwritten or deleted", async () => {
    const storage = createStorage(`file://${await makeTempDir()}`);
    const first = patternBytes(2 * 1024 * 1024, 1);
    await storage.put("k/obj", first);
    const reader = await storage.get("k/obj");
    await storage.put("k/obj", patternBytes(10, 2));
    await storage.delete("k/obj");
    expect(await readAll(reader)).toEqual(first);
  });

  test("a key cannot be both an object and a directory of other objects", async () => {
    const storage = createStorage(`file://${await makeTempDir()}`);
    await storage.put("a/b", patternBytes(1));
    await expect(storage.put("a/b/c", patternBytes(1))).rejects.toBeInstanceOf(InvalidKeyError);
    await storage.put("x/y/z", patternBytes(1));
    await expect(storage.put("x/y", patternBytes(1))).rejects.toBeInstanceOf(InvalidKeyError);
    expect((await storage.list("")).map((o) => o.key)).toEqual(["a/b", "x/y/z"]);
    expect(await readdir(join((storage as FileStorage).root, ".tmp"))).toEqual([]);
  });

  test("put fsyncs and renames: no object is visible before the body ends", async () => {
    const storage = createStorage(`file://${await makeTempDir()}`);
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (!sent) {
          sent = true;
          return controller.enqueue(patternBytes(1000));
        }
        await gate;
        controller.close();
      },
    });
    const put = storage.put("v/obj", body);
    // The first 1000 bytes are in the staging file: the put is under way, the body not ended.
    const staging = join((storage as FileStorage).root, ".tmp");
    await waitUntil(
      async () => {
        const files = await readdir(staging).catch(() => [] as string[]);
        for (const file of files) if ((await stat(join(staging, file))).size === 1000) return true;
        return false;
      },
      { message: "the first bytes in the staging file" },
    );
    expect(await storage.stat("v/obj")).toBeNull();
    release();
    expect(await put).toEqual({ size: 1000 });
    expect((await storage.stat("v/obj"))?.size).toBe(1000);
  });
});
