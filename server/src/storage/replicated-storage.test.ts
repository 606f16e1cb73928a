import { afterEach, describe, expect, test } from "bun:test";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createStorage, FileStorage, ObjectNotFoundError, type ReplicaFailure, type ReplicatedStorage } from ".";
import { runStorageSuite } from "../../test/storage/storage-suite";
import { patternBytes, patternStream, readAll } from "../../test/storage/suite-helpers";

const made: string[] = [];
async function makeTempDir() {
  const dir = await mkdtemp(join(tmpdir(), "dbvault-replica-storage-"));
  made.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const debrisOf = async (root: string) => [...(await readdir(join(root, ".tmp")).catch(() => [])), ...(await readdir(join(root, ".uploads")).catch(() => []))];

runStorageSuite("replicated (two folders)", async () => {
  const dir = await makeTempDir();
  const [primary, replica] = [join(dir, "primary"), join(dir, "replica")];
  return {
    storage: createStorage(`file://${primary}`, {}, null, { url: `file://${replica}` }),
    debris: async () => [...(await debrisOf(primary)), ...(await debrisOf(replica))],
    async unavailableStorage() {
      await writeFile(join(dir, "not-a-dir"), "x");
      return createStorage(`file://${join(dir, "not-a-dir", "a")}`, {}, null, { url: `file://${join(dir, "not-a-dir", "b")}` });
    },
    cleanup: async () => {},
  };
});

/**
 * A folder that stops taking writes and reads, as a disk gone read-only or unmounted would: the
 * folder is moved aside and a regular file put in its place (the tests run as root, whom no
 * permission bit stops). `restore()` brings the folder back with what it held.
 */
async function outage(root: string) {
  const aside = `${root}.aside`;
  await rm(aside, { recursive: true, force: true });
  await Bun.$`mv ${root} ${aside}`.quiet();
  await writeFile(root, "down");
  return async () => {
    await rm(root, { force: true });
    await Bun.$`mv ${aside} ${root}`.quiet();
  };
}

describe("replicated storage", () => {
  async function setUp() {
    const dir = await makeTempDir();
    const [primaryRoot, replicaRoot] = [join(dir, "primary"), join(dir, "replica")];
    const failures: ReplicaFailure[] = [];
    const storage = createStorage(`file://${primaryRoot}`, {}, null, { url: `file://${replicaRoot}`, onFailure: (f) => failures.push(f) }) as ReplicatedStorage;
    // Each side made (and its staging folders created) before an outage moves it aside.
    await storage.put("warm/up", patternBytes(1));
    await storage.delete("warm/up");
    return { storage, failures, primaryRoot, replicaRoot, primary: new FileStorage(primaryRoot), replica: new FileStorage(replicaRoot) };
  }

  test("writes land on both sides", async () => {
    const { storage, primary, replica } = await setUp();
    await storage.put("b/one", patternStream(300_000, 5));
    await storage.writeUploadPart("up1", 0, 0, patternBytes(1000, 6));
    await storage.completeUpload("up1", "b/two", 1000);
    for (const side of [primary, replica]) expect((await side.list("")).map((o) => o.key)).toEqual(["b/one", "b/two"]);
    expect(storage.failures()).toEqual([]);
  });

  test("with the primary down an upload still completes, the replica holds it, the failure is counted and repair copies it back", async () => {
    const { storage, failures, primaryRoot, primary, replica } = await setUp();
    const heal = await outage(primaryRoot);
    await storage.put("backups/u/b1/manifest.json", patternBytes(500, 1));
    await storage.writeUploadPart("up2", 0, 0, patternStream(200_000, 2));
    await storage.completeUpload("up2", "backups/u/b1/part-000001", 200_000);
    expect((await replica.list("")).map((o) => o.key)).toEqual(["backups/u/b1/manifest.json", "backups/u/b1/part-000001"]);
    expect(storage.failures()).toEqual([{ side: "primary", operation: "put", count: 2 }]);
    expect(failures.map((f) => f.key)).toEqual(["backups/u/b1/manifest.json", "backups/u/b1/part-000001"]);
    expect(storage.missingCounts()).toEqual({ primary: 2, replica: 0 });
    // Served from the replica while the primary is down.
    expect(await readAll(await storage.get("backups/u/b1/manifest.json"))).toEqual(patternBytes(500, 1));
    expect((await storage.stat("backups/u/b1/part-000001"))?.size).toBe(200_000);
    const source = await storage.httpSource("backups/u/b1/part-000001", { start: 0, end: 9 });
    expect(source.kind).toBe("blob");

    // A repair while the primary is still down copies nothing and still counts the gap.
    expect(await storage.repair()).toMatchObject({ copiedToPrimary: 0, missingOnPrimary: 2 });
    await heal();
    expect(await storage.repair()).toEqual({ copiedToPrimary: 2, copiedToReplica: 0, missingOnPrimary: 0, missingOnReplica: 0 });
    expect(await readAll(await primary.get("backups/u/b1/part-000001"))).toEqual(await readAll(await replica.get("backups/u/b1/part-000001")));
    expect(storage.missingCounts()).toEqual({ primary: 0, replica: 0 });
  });

  test("with the replica down a write succeeds, and repair copies the object to the replica", async () => {
    const { storage, replicaRoot, replica } = await setUp();
    const heal = await outage(replicaRoot);
    await storage.put("k/one", patternBytes(64, 3));
    expect(storage.failures()).toEqual([{ side: "replica", operation: "put", count: 1 }]);
    await heal();
    expect(await replica.stat("k/one")).toBeNull();
    await storage.retain("k/one", new Date(Date.now() + 60_000)); // the replica lacks it: not an error
    expect(storage.failures()).toContainEqual({ side: "replica", operation: "retain", count: 1 });
    expect(await storage.repair()).toMatchObject({ copiedToReplica: 1, missingOnReplica: 0 });
    expect(await readAll(await replica.get("k/one"))).toEqual(patternBytes(64, 3));
  });

  test("a download with the primary down is served from the replica; a key on neither is not found", async () => {
    const { storage, primaryRoot } = await setUp();
    await storage.put("d/file", patternBytes(2000, 4));
    const heal = await outage(primaryRoot);
    expect(await readAll(await storage.get("d/file", { start: 10, end: 19 }))).toEqual(patternBytes(2000, 4).slice(10, 20));
    await expect(storage.get("d/none")).rejects.toBeInstanceOf(ObjectNotFoundError);
    await heal();
  });

  test("both sides down: the write fails", async () => {
    const { storage, primaryRoot, replicaRoot } = await setUp();
    const heals = [await outage(primaryRoot), await outage(replicaRoot)];
    await expect(storage.put("n/one", patternBytes(10))).rejects.toThrow();
    await expect(storage.check()).rejects.toThrow();
    for (const heal of heals) await heal();
  });
});
