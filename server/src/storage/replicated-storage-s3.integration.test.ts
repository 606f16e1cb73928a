// The storage contract over a replicated storage whose primary is S3 (s3rver) and whose replica
// is a folder: the two backends of a self-hoster's STORAGE_URL / STORAGE_REPLICA_URL pair.
import { afterAll, beforeAll } from "bun:test";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type S3Server, startS3Server } from "../../../testkit/s3-server";
import { createStorage, ReplicatedStorage, S3Storage } from ".";
import { s3Debris } from "../../test/storage/s3-debris";
import { runStorageSuite } from "../../test/storage/storage-suite";

let server: S3Server;
let dir: string;
beforeAll(async () => {
  server = await startS3Server();
  dir = await mkdtemp(join(tmpdir(), "dbvault-replica-s3-"));
});
afterAll(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

const credentials = () => ({ endpoint: server.endpoint, bucket: server.bucket, accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey });

let run = 0;
runStorageSuite("replicated (s3 primary, folder replica)", async () => {
  const keyPrefix = `suite-${++run}/`;
  const replicaRoot = join(dir, `replica-${run}`);
  const storage = new ReplicatedStorage(new S3Storage({ ...credentials(), keyPrefix, pageSize: 3 }), createStorage(`file://${replicaRoot}`));
  return {
    storage,
    debris: async () => [
      ...(await s3Debris(server, keyPrefix)),
      ...(await readdir(join(replicaRoot, ".tmp")).catch(() => [])),
      ...(await readdir(join(replicaRoot, ".uploads")).catch(() => [])),
    ],
    async unavailableStorage() {
      // Both sides down: a stopped S3 server, and a file where the replica's folder should be.
      const own = await startS3Server();
      const primary = createStorage(own.url);
      await primary.check();
      await own.stop();
      await writeFile(join(dir, `not-a-dir-${run}`), "x");
      return new ReplicatedStorage(primary, createStorage(`file://${join(dir, `not-a-dir-${run}`, "replica")}`));
    },
    async cleanup() {
      await Promise.all((await storage.list("")).map((object) => storage.delete(object.key)));
    },
    // The S3 side's multipart buffers (see s3-storage.integration.test.ts) plus the folder's few.
    streamingBoundMiB: 40,
  };
});
