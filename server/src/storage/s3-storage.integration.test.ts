import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type S3Server, startS3Server } from "../../../testkit/s3-server";
import { createStorage, S3Storage, StorageUnavailableError, UploadIncompleteError } from ".";
import { s3Debris } from "../../test/storage/s3-debris";
import { runStorageSuite } from "../../test/storage/storage-suite";
import { MiB, patternBytes, patternStream, readAll } from "../../test/storage/suite-helpers";
import { waitUntil } from "../../../testkit/wait-until";

let server: S3Server;
beforeAll(async () => {
  server = await startS3Server();
});
afterAll(() => server?.stop());

const credentials = () => ({ endpoint: server.endpoint, bucket: server.bucket, accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey });

let run = 0;
runStorageSuite(
  "s3 (s3rver)",
  async () => {
    // One server for the file; each test gets a fresh key prefix, i.e. an empty storage. A page size
    // of 3 makes every listing of more than three objects paginate.
    const keyPrefix = `suite-${++run}/`;
    const storage = new S3Storage({ ...credentials(), keyPrefix, pageSize: 3 });
    return {
      storage,
      debris: () => s3Debris(server, keyPrefix),
      async unavailableStorage() {
        const own = await startS3Server();
        const doomed = createStorage(own.url);
        await doomed.check(); // it did work while the server ran
        await own.stop();
        return doomed;
      },
      async breakCompletion(uploadId) {
        // The connection dies 2 MiB into reading back the second staged part.
        await server.injectFaults([{ method: "GET", pathIncludes: `${keyPrefix}.uploads/${uploadId}/part-000001`, cutAfterBytes: 2 * MiB, times: 1 }]);
        return () => server.injectFaults([]);
      },
      async cleanup() {
        await server.injectFaults([]);
        await Promise.all((await storage.list("")).map((object) => storage.delete(object.key)));
      },
      // A multipart put holds 3 part buffers of 5 MiB (2 in flight, 1 filling) and fetch keeps its
      // own copy of each part in flight: ~25 MiB measured, the same for any body size.
      streamingBoundMiB: 40,
    };
  },
  { canBreakCompletion: true },
);

describe("s3 storage", () => {
  test("createStorage reads bucket, endpoint and credentials from the URL (query or user:password)", async () => {
    const fromQuery = createStorage(server.url);
    expect(fromQuery.kind).toBe("s3");
    await fromQuery.put("url/query", patternBytes(5));
    const fromUserInfo = createStorage(`s3://${server.accessKeyId}:${server.secretAccessKey}@${server.bucket}?endpoint=${server.endpoint}`);
    expect(await readAll(await fromUserInfo.get("url/query"))).toEqual(patternBytes(5));
    await fromUserInfo.deletePrefix("url/");
  });

  test("credentials the URL leaves out come from the environment's S3 settings, for plain and multipart puts", async () => {
    const storage = createStorage(`s3://${server.bucket}?endpoint=${server.endpoint}`, {
      accessKeyId: server.accessKeyId,
      secretAccessKey: server.secretAccessKey,
      region: "eu-west-1",
    });
    expect(await storage.put("env/small", patternBytes(10))).toEqual({ size: 10 });
    expect(await storage.put("env/multi", patternStream(6 * MiB, 3, { chunkSize: MiB }))).toEqual({ size: 6 * MiB });
    expect((await storage.list("env/")).map((o) => [o.key, o.size])).toEqual([
      ["env/multi", 6 * MiB],
      ["env/small", 10],
    ]);
    expect(await storage.deletePrefix("env/")).toBe(2);
    const wrong = createStorage(`s3://${server.bucket}?endpoint=${server.endpoint}&accessKeyId=WRONG&secretAccessKey=WRONG`, {
      accessKeyId: server.accessKeyId,
      secretAccessKey: server.secretAccessKey,
    });
    await expect(wrong.put("env/refused", patternStream(6 * MiB, 3, { chunkSize: MiB }))).rejects.toBeInstanceOf(StorageUnavailableError);
  });

  test("a key prefix in the URL keeps this storage's objects apart from the rest of the bucket", async () => {
    const whole = createStorage(server.url);
    const scoped = createStorage(`s3://${server.bucket}/dbvault/?endpoint=${server.endpoint}&accessKeyId=S3RVER&secretAccessKey=S3RVER`);
    await whole.put("other/app-data", patternBytes(3));
    await scoped.put("backups/part-000001", patternBytes(4));
    expect((await scoped.list("")).map((o) => o.key)).toEqual(["backups/part-000001"]);
    expect((await whole.list("dbvault/")).map((o) => o.key)).toEqual(["dbvault/backups/part-000001"]);
    expect(await scoped.deletePrefix("backups/")).toBe(1);
    expect((await whole.list("other/")).map((o) => o.key)).toEqual(["other/app-data"]);
    await whole.delete("other/app-data");
  });

  test("lists past 1000 objects across pages of the server's default size", async () => {
    const storage = new S3Storage({ ...credentials(), keyPrefix: "many/" });
    const keys = Array.from({ length: 1003 }, (_, i) => `k/${String(i).padStart(4, "0")}`);
    for (let i = 0; i < keys.length; i += 50) await Promise.all(keys.slice(i, i + 50).map((key) => storage.put(key, new Uint8Array(0))));
    expect((await storage.list("k/")).map((o) => o.key)).toEqual(keys);
    expect(await storage.deletePrefix("k/")).toBe(1003);
    expect(await storage.list("")).toEqual([]);
  });

  test("check() fails with StorageUnavailableError on wrong credentials", async () => {
    const storage = new S3Storage({ ...credentials(), accessKeyId: "WRONG", secretAccessKey: "WRONG" });
    await expect(storage.check()).rejects.toBeInstanceOf(StorageUnavailableError);
  });

  test("check() fails on a missing bucket", async () => {
    const storage = new S3Storage({ ...credentials(), bucket: "no-such-bucket" });
    await expect(storage.check()).rejects.toBeInstanceOf(StorageUnavailableError);
  });
});

describe("s3 staged uploads", () => {
  test("a completion whose staged part vanished mid-way (another completion took it) is UploadIncompleteError", async () => {
    // The agent's retried completion races its first one, which deletes the parts once it has
    // published the object; uploads/service.ts then finds that object whole instead of failing the backup.
    const storage = new S3Storage({ ...credentials(), keyPrefix: "vanished/" });
    await storage.writeUploadPart("upload1", 0, 0, patternBytes(1000, 1));
    await storage.writeUploadPart("upload1", 1, 1000, patternBytes(1000, 2));
    await server.injectFaults([{ method: "GET", pathIncludes: "vanished/.uploads/upload1/part-000001", status: 404, code: "NoSuchKey", times: 1 }]);
    try {
      await expect(storage.completeUpload("upload1", "b/whole", 2000)).rejects.toBeInstanceOf(UploadIncompleteError);
    } finally {
      await server.injectFaults([]);
    }
    expect(await storage.stat("b/whole")).toBeNull();
    await storage.abortUpload("upload1");
  });
});

describe("s3 storage on a slow CreateMultipartUpload", () => {
  // Bun 1.4.5's own multipart upload loses track of an upload whose body fails before S3 answered
  // CreateMultipartUpload; the upload then stays stored (and billed) for good. Ours must not.
  test("a body failing before the upload id is known still leaves no upload behind", async () => {
    const slow = await startS3Server({ createUploadDelayMs: 1500 });
    try {
      const storage = new S3Storage({ endpoint: slow.endpoint, bucket: slow.bucket, accessKeyId: slow.accessKeyId, secretAccessKey: slow.secretAccessKey });
      const failure = new Error("agent went away");
      const body = patternStream(20 * MiB, 1, { chunkSize: MiB, failAfter: { bytes: 13 * MiB, error: failure } });
      await expect(storage.put("slow/fails", body)).rejects.toBe(failure);
      // The delayed CreateMultipartUpload answer arrives after the failure; the upload it opened
      // must then be aborted.
      await waitUntil(async () => (await slow.answeredCreates()) >= 1 && (await slow.pendingUploads()).length === 0, {
        message: "the late upload to be answered, then aborted",
      });
      expect(await slow.pendingUploads()).toEqual([]);
      expect(await storage.list("")).toEqual([]);
      // and a body that does not fail still lands whole
      expect(await storage.put("slow/whole", patternStream(12 * MiB, 2, { chunkSize: MiB }))).toEqual({ size: 12 * MiB });
      expect((await storage.stat("slow/whole"))?.size).toBe(12 * MiB);
    } finally {
      await slow.stop();
    }
  });
});
