// STORAGE_OBJECT_LOCK against moto's S3 server, which enforces Object Lock (testkit/moto-server.ts):
// what S3Storage writes under a lock is still there, byte for byte, after the holder of the
// bucket's own credentials tried to delete and overwrite it; S3Storage's own deletes remove every
// version once the lock has ended and refuse (ObjectLockedError) before; the start-up check names
// what a bucket lacks.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { findMoto, type MotoServer, startMoto } from "../../../testkit/moto-server";
import { waitUntil } from "../../../testkit/wait-until";
import { runStorageSuite } from "../../test/storage/storage-suite";
import { ObjectLockedError } from "./errors";
import { createStorage } from "./index";
import type { S3Storage } from "./s3-storage";

const { missing } = findMoto();
const MiB = 1024 * 1024;
const HOUR = 3_600_000;

let moto: MotoServer;
beforeAll(async () => {
  if (!missing) moto = await startMoto();
});
afterAll(() => moto?.stop());

let buckets = 0;
async function lockedStorage(mode: "compliance" | "governance" = "compliance") {
  const bucket = `locked-${++buckets}`;
  const url = await moto.createBucket(bucket);
  return { bucket, storage: createStorage(url, {}, mode) as S3Storage };
}

const xmlValues = (xml: string, tag: string) => [...xml.matchAll(new RegExp(`<${tag}>([^<]*)</${tag}>`, "g"))].map((m) => m[1]!);

/** Every version id of `key` (not the delete markers), straight from S3. */
async function versionsOf(bucket: string, key: string): Promise<string[]> {
  const xml = await (await moto.s3.fetch(`${moto.endpoint}/${bucket}?versions&prefix=${encodeURIComponent(key)}`)).text();
  return [...xml.matchAll(/<Version>([\s\S]*?)<\/Version>/g)].filter((m) => xmlValues(m[1]!, "Key")[0] === key).map((m) => xmlValues(m[1]!, "VersionId")[0]!);
}

const readVersion = async (bucket: string, key: string, versionId: string) =>
  Buffer.from(await (await moto.s3.fetch(`${moto.endpoint}/${bucket}/${key}?versionId=${versionId}`)).arrayBuffer());

// The whole storage contract with the lock on (objects written without a retainUntil, as staged
// parts are): a versioned bucket, where every delete must remove versions, not add markers.
if (!missing) {
  let run = 0;
  runStorageSuite("s3 with STORAGE_OBJECT_LOCK (moto)", async () => {
    const bucket = `suite-${++run}`;
    const url = await moto.createBucket(bucket);
    const storage = createStorage(url, {}, "compliance") as S3Storage;
    const leftovers = async (query: string, tag: string) => xmlValues(await (await moto.s3.fetch(`${moto.endpoint}/${bucket}?${query}`)).text(), tag);
    return {
      storage,
      // Unfinished multipart uploads, and every version or delete marker of a staged part.
      debris: async () => [...(await leftovers("uploads", "UploadId")), ...(await leftovers("versions&prefix=.uploads/", "Key"))],
      async unavailableStorage() {
        const own = await startMoto();
        try {
          const doomed = createStorage(await own.createBucket("doomed"), {}, "compliance");
          await doomed.check(); // it did work while the server ran
          return doomed;
        } finally {
          await own.stop();
        }
      },
      async cleanup() {
        await storage.deletePrefix("b").catch(() => undefined);
      },
      streamingBoundMiB: 40,
    };
  });
}

describe.skipIf(missing !== null)(`Object Lock on S3 (moto)${missing ? `: skipped, ${missing}` : ""}`, () => {
  test("every kind of object written under a COMPLIANCE lock survives deletes and overwrites with the bucket's own credentials", async () => {
    const { bucket, storage } = await lockedStorage();
    const retainUntil = new Date(Date.now() + HOUR);
    // One PUT (a manifest), a streamed multipart upload (a large backup file) and a completed
    // staged upload (how agents' parts become a backup file).
    const small = randomBytes(1000);
    const large = randomBytes(6 * MiB + 123);
    const staged = randomBytes(5000);
    await storage.put("b/u1/x/manifest.json", small, { retainUntil });
    await storage.put("b/u1/x/large.enc", new Blob([large]).stream(), { retainUntil });
    await storage.writeUploadPart("up-1", 0, 0, staged);
    await storage.completeUpload("up-1", "b/u1/x/backup.enc.dbvault", staged.byteLength, { fileName: "backup.enc.dbvault", retainUntil });
    const objects = { "b/u1/x/manifest.json": small, "b/u1/x/large.enc": large, "b/u1/x/backup.enc.dbvault": staged };

    for (const [key, bytes] of Object.entries(objects)) {
      const [original] = await versionsOf(bucket, key);
      expect(original).toBeDefined();
      // Deleting the version itself: refused while the lock lasts, with or without the GOVERNANCE bypass.
      for (const headers of [{}, { "x-amz-bypass-governance-retention": "true" }] as Record<string, string>[]) {
        const refused = await moto.s3.fetch(`${moto.endpoint}/${bucket}/${key}?versionId=${original}`, { method: "DELETE", headers });
        expect(refused.status).toBe(403);
        expect(await refused.text()).toContain("<Code>AccessDenied</Code>");
      }
      // An overwrite and a plain DELETE only stack a new version and a delete marker on top.
      expect((await moto.s3.fetch(`${moto.endpoint}/${bucket}/${key}`, { method: "PUT", body: "ransom note" })).status).toBe(200);
      expect((await moto.s3.fetch(`${moto.endpoint}/${bucket}/${key}`, { method: "DELETE" })).status).toBe(204);
      // And S3Storage's own delete, as a stolen server would run it, keeps it too.
      await expect(storage.delete(key)).rejects.toBeInstanceOf(ObjectLockedError);
      expect((await readVersion(bucket, key, original!)).equals(bytes)).toBe(true);
    }
    await expect(storage.deletePrefix("b/u1/")).rejects.toBeInstanceOf(ObjectLockedError);
    for (const [key, bytes] of Object.entries(objects)) {
      const [original] = await versionsOf(bucket, key);
      expect((await readVersion(bucket, key, original!)).equals(bytes)).toBe(true);
    }
  });

  test("the lock is set on each object: a multipart upload's too, read back from S3", async () => {
    const { bucket, storage } = await lockedStorage();
    const retainUntil = new Date(Date.now() + HOUR);
    await storage.put("b/u1/y/large.enc", new Blob([randomBytes(5 * MiB + 1)]).stream(), { retainUntil });
    await storage.put("b/u1/y/manifest.json", randomBytes(10), { retainUntil });
    for (const key of ["b/u1/y/large.enc", "b/u1/y/manifest.json"]) {
      const head = await moto.s3.fetch(`${moto.endpoint}/${bucket}/${key}`, { method: "HEAD" });
      expect(head.headers.get("x-amz-object-lock-mode")).toBe("COMPLIANCE");
      expect(new Date(head.headers.get("x-amz-object-lock-retain-until-date")!).getTime()).toBe(retainUntil.getTime());
    }
  });

  test("retain() extends a lock and never shortens it", async () => {
    const { bucket, storage } = await lockedStorage();
    const first = new Date(Date.now() + HOUR);
    await storage.put("b/u1/z/manifest.json", randomBytes(10), { retainUntil: first });
    const lockOf = async () =>
      new Date(
        (await moto.s3.fetch(`${moto.endpoint}/${bucket}/b/u1/z/manifest.json`, { method: "HEAD" })).headers.get("x-amz-object-lock-retain-until-date")!,
      ).getTime();
    await storage.retain("b/u1/z/manifest.json", new Date(Date.now() + 60_000));
    expect(await lockOf()).toBe(first.getTime());
    const longer = new Date(Date.now() + 48 * HOUR);
    await storage.retain("b/u1/z/manifest.json", longer);
    expect(await lockOf()).toBe(longer.getTime());
  });

  test("once the lock has ended, a delete removes every version (no delete marker left holding the bytes)", async () => {
    const { bucket, storage } = await lockedStorage();
    await storage.put("b/u1/w/manifest.json", randomBytes(10), { retainUntil: new Date(Date.now() + 1500) });
    await storage.put("b/u1/w/manifest.json", randomBytes(20), { retainUntil: new Date(Date.now() + 1500) });
    await storage.writeUploadPart("up-2", 0, 0, randomBytes(10)); // staged parts are never locked
    await storage.abortUpload("up-2");
    await waitUntil(() => storage.deletePrefix("b/u1/w/").then(() => true), { message: "the lock to end" });
    const xml = await (await moto.s3.fetch(`${moto.endpoint}/${bucket}?versions`)).text();
    expect(xmlValues(xml, "Key")).toEqual([]);
  });

  test("GOVERNANCE: deletes refused, except with the bypass header (what its name says: s3:BypassGovernanceRetention holders can)", async () => {
    const { bucket, storage } = await lockedStorage("governance");
    await storage.put("b/u1/g/manifest.json", randomBytes(10), { retainUntil: new Date(Date.now() + HOUR) });
    const [version] = await versionsOf(bucket, "b/u1/g/manifest.json");
    await expect(storage.delete("b/u1/g/manifest.json")).rejects.toBeInstanceOf(ObjectLockedError);
    const url = `${moto.endpoint}/${bucket}/b/u1/g/manifest.json?versionId=${version}`;
    expect((await moto.s3.fetch(url, { method: "DELETE" })).status).toBe(403);
    expect((await moto.s3.fetch(url, { method: "DELETE", headers: { "x-amz-bypass-governance-retention": "true" } })).status).toBe(204);
  });

  test("the start-up check names what the bucket lacks", async () => {
    const plain = createStorage(await moto.createBucket("plain-bucket", { objectLock: false }), {}, "compliance") as S3Storage;
    await expect(plain.checkObjectLock()).rejects.toThrow(/this bucket has no versioning and no Object Lock\. Object Lock can only be enabled on a new bucket/);
    const versioned = createStorage(await moto.createBucket("versioned-bucket", { objectLock: false, versioning: true }), {}, "compliance") as S3Storage;
    await expect(versioned.checkObjectLock()).rejects.toThrow(/this bucket has no Object Lock\./);
    const { storage } = await lockedStorage();
    await storage.checkObjectLock();
  });
});

// moto 5.2.5 takes any PutObjectRetention (moto/s3/models.py put_object_retention checks
// nothing), so it cannot show S3 refusing a shortened COMPLIANCE retention; AWS, MinIO and
// SeaweedFS refuse it. What DBVault itself does is tested above: retain() never shortens.
test.skip("a shortened COMPLIANCE retention is refused (not enforced by moto 5.2.5)", () => {});
