// Node entry point of the test S3 server (started by testkit/s3-server.ts; run it under node with
// --openssl-legacy-provider, because s3rver encrypts ListObjectsV2 continuation tokens with DES).
//   node --openssl-legacy-provider testkit/s3-server-node.cjs DIRECTORY BUCKET [CREATE_UPLOAD_DELAY_MS]
//   -> prints {"port":…} on its first line once the bucket exists and the server listens.
"use strict";

const path = require("node:path");
const fs = require("node:fs/promises");
const S3rver = require("s3rver");

const [directory, bucket, createUploadDelay = "0"] = process.argv.slice(2);
if (!directory || !bucket) {
  console.error("usage: s3-server-node.cjs DIRECTORY BUCKET");
  process.exit(2);
}

const server = new S3rver({
  directory,
  address: "127.0.0.1",
  port: 0,
  silent: true,
  vhostBuckets: false,
  configureBuckets: [{ name: bucket, configs: [] }],
});

// s3rver 3.7 answers AbortMultipartUpload (DELETE /bucket/key?uploadId=…) with 405 and accepts
// parts for uploads that no longer exist, so parts of an aborted upload would pile up where real S3
// deletes them and refuses late parts with NoSuchUpload. Tests check that an aborted put leaves no
// parts behind, so the server must behave like S3 here. Runs before s3rver's router.
server.middleware.unshift(async (ctx, next) => {
  const uploadId = ctx.query.uploadId;
  const match = typeof uploadId === "string" ? ctx.path.match(/^\/([^/]+)\/.+$/) : null;
  if (!match || (ctx.method !== "DELETE" && ctx.method !== "PUT")) return next();
  if (!/^[0-9a-f]+$/.test(uploadId)) {
    ctx.status = 400;
    return;
  }
  const uploadDir = path.join(server.store.getResourcePath(match[1], undefined, "uploads"), uploadId);
  const exists = await fs.stat(path.join(uploadDir, "key")).then(
    () => true,
    () => false,
  );
  if (!exists) {
    ctx.status = 404;
    ctx.type = "application/xml";
    ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message></Error>`;
    return;
  }
  if (ctx.method === "PUT") return next();
  await fs.rm(uploadDir, { recursive: true, force: true });
  ctx.status = 204;
});

// More s3rver 3.7 faults that real S3 does not have, fixed here rather than worked around in the
// code under test:
// - it lists keys in directory-walk order ("p/a/z" before "p/a.txt"), not in S3's byte order, so
//   a paginated listing skips keys that sort before the last key of the previous page;
// - it reads a range's end as `end || Infinity`, so "Range: bytes=0-0" returns the whole object;
// - deleting two objects of one "directory" at once races on pruning the emptied directory and one
//   delete fails with InternalError (real S3 deletes concurrently all day).
const store = server.store;
const listObjects = store.listObjects.bind(store);
store.listObjects = async (bucket, options) => {
  if (options.delimiter) return listObjects(bucket, options); // not used by DBVault; left as is
  const { startAfter = "", maxKeys = Number.POSITIVE_INFINITY } = options;
  const all = await listObjects(bucket, { ...options, startAfter: "", maxKeys: Number.POSITIVE_INFINITY });
  const byteOrder = (a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key));
  const after = all.objects.sort(byteOrder).filter((object) => Buffer.compare(Buffer.from(object.key), Buffer.from(startAfter)) > 0);
  return { objects: after.slice(0, maxKeys), commonPrefixes: [], isTruncated: after.length > maxKeys };
};
const getObject = store.getObject.bind(store);
store.getObject = async (bucket, key, options) => {
  const object = await getObject(bucket, key, options);
  if (object && object.content && options && options.start === 0 && options.end === 0) {
    object.content.destroy();
    object.content = require("node:fs").createReadStream(store.getResourcePath(bucket, key, "object"), { start: 0, end: 0 });
    object.range = { start: 0, end: 0 };
  }
  return object;
};
store.deleteObject = async (bucket, key) => {
  await Promise.all(["object", "object.md5", "metadata.json"].map((resource) => fs.rm(store.getResourcePath(bucket, key, resource), { force: true })));
  const parts = key.split("/").slice(0, -1);
  for (; parts.length > 0; parts.pop()) {
    const removed = await fs.rmdir(path.join(store.getBucketPath(bucket), ...parts)).then(
      () => true,
      () => false,
    );
    if (!removed) break; // not empty, or already pruned by a concurrent delete
  }
};

// A slow CreateMultipartUpload (as a loaded server or a far region gives) opens the window in which
// a body can fail before the upload id is known; tests use it to show no upload is left behind.
const createUploadDelayMs = Number(createUploadDelay);
// Each answered CreateMultipartUpload adds a line to answered-creates.log beside the bucket, so a
// test can wait for the delayed answer itself instead of sleeping past it.
const answeredCreatesLog = path.join(directory, "answered-creates.log");
server.middleware.unshift(async (ctx, next) => {
  const isCreate = ctx.method === "POST" && "uploads" in ctx.query;
  if (createUploadDelayMs > 0 && isCreate) await new Promise((resolve) => setTimeout(resolve, createUploadDelayMs));
  await next();
  if (isCreate) await fs.appendFile(answeredCreatesLog, "answered\n");
});

// Faults a test asks for (testkit/s3-server.ts injectFaults writes faults.json beside the bucket):
// requests matching a fault's method and path fragment get its error answer instead of s3rver's,
// as S3 gives during an outage or when it throttles (503 SlowDown), `times` times at most (then the
// fault is spent), or have their connection cut: before the answer (`drop`), or after
// `cutAfterBytes` bytes of its body. Read on every request, so a test
// changes the faults between two requests without restarting the server.
const faultsFile = path.join(directory, "faults.json");
server.middleware.unshift(async (ctx, next) => {
  const faults = await fs.readFile(faultsFile, "utf8").then(JSON.parse, () => []);
  const fault = faults.find(
    (f) => f.times > 0 && (!f.method || f.method === ctx.method) && (!f.pathIncludes || decodeURIComponent(ctx.path).includes(f.pathIncludes)),
  );
  if (!fault) return next();
  fault.times--;
  await fs.writeFile(faultsFile, JSON.stringify(faults));
  if (fault.drop) {
    ctx.req.socket.destroy();
    return;
  }
  if (fault.cutAfterBytes !== undefined) {
    // s3rver answers normally, but the connection dies after that many bytes of the body.
    await next();
    const { Readable } = require("node:stream");
    const source = ctx.body;
    const socket = ctx.req.socket;
    const length = ctx.response.length; // Koa drops it when the body is replaced; the cut must show as short
    ctx.body = Readable.from(
      (async function* () {
        let sent = 0;
        for await (const chunk of source) {
          const room = fault.cutAfterBytes - sent;
          if (room > 0) yield chunk.subarray(0, room);
          sent += Math.min(room, chunk.length);
          if (sent >= fault.cutAfterBytes) break;
        }
        // Never ends the body: the connection dies with the answer unfinished.
        setTimeout(() => socket.destroy(), 50);
        await new Promise(() => {});
      })(),
    );
    if (length !== undefined) ctx.length = length;
    return;
  }
  ctx.status = fault.status ?? 503;
  ctx.type = "application/xml";
  ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${fault.code ?? "SlowDown"}</Code><Message>Injected by the test.</Message></Error>`;
});

server.run().then(
  ({ port }) => console.log(JSON.stringify({ port })),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
