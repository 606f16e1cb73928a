// A real S3-compatible server (npm s3rver) run as its own process for tests: the S3 storage backend
// and the backup pipeline talk to it over HTTP exactly as they would to AWS, MinIO or R2.
// s3rver runs under node, not Bun: under Bun its ListObjects answers come back unsorted
// (see /work/shared/design/STACK-NOTES.md, "Object storage"). The node side is s3-server-node.cjs.
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitUntil } from "./wait-until";

export type S3Server = {
  /** STORAGE_URL for the bucket: `s3://BUCKET?endpoint=http://127.0.0.1:PORT&accessKeyId=S3RVER&secretAccessKey=S3RVER`. */
  url: string;
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** s3rver's data directory (objects and unfinished multipart uploads live here). */
  directory: string;
  /** Ids of multipart uploads begun but neither completed nor aborted (parts S3 would bill for). */
  pendingUploads(): Promise<string[]>;
  /** How many CreateMultipartUpload requests have been answered so far. */
  answeredCreates(): Promise<number>;
  /**
   * Makes the server answer matching requests with an error (default 503 SlowDown) or cut their
   * connection (`drop`, or after `cutAfterBytes` bytes of the answer), each fault `times` times; replaces the faults given before ([] clears them).
   */
  injectFaults(faults: S3Fault[]): Promise<void>;
  /** Stops the server and deletes its data directory. Safe to call twice. */
  stop(): Promise<void>;
};

/** One fault: requests with this method (any when absent) whose path contains `pathIncludes`. */
export type S3Fault = { method?: string; pathIncludes?: string; times: number; status?: number; code?: string; drop?: boolean; cutAfterBytes?: number };

const credentials = "S3RVER"; // s3rver's only built-in account (key id and secret are both this)
const readyTimeoutMs = 15_000;

/** Starts s3rver under node on a free loopback port with one empty bucket; throws when node is missing or it does not come up. */
export async function startS3Server(
  options: { bucket?: string /** Delays every CreateMultipartUpload answer. */; createUploadDelayMs?: number } = {},
): Promise<S3Server> {
  const bucket = options.bucket ?? "dbvault-test";
  const node = Bun.which("node");
  if (!node) throw new Error("startS3Server: `node` is not on PATH (s3rver must run under node, not Bun)");
  const directory = await mkdtemp(join(tmpdir(), "dbvault-s3rver-"));

  // Port 0 lets the OS pick a free port; the server prints the one it got, so there is no race.
  // s3rver encrypts continuation tokens with DES, which OpenSSL 3 only offers from its legacy provider.
  const child = Bun.spawn(
    [node, "--openssl-legacy-provider", join(import.meta.dir, "s3-server-node.cjs"), directory, bucket, String(options.createUploadDelayMs ?? 0)],
    {
      stdout: "pipe",
      stderr: "inherit", // a failing s3rver explains itself in the test output
    },
  );
  const killOnExit = () => child.kill();
  process.once("exit", killOnExit);

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.off("exit", killOnExit);
    child.kill();
    await child.exited;
    await rm(directory, { recursive: true, force: true });
  };

  try {
    const port = await readPort(child.stdout, readyTimeoutMs);
    const endpoint = `http://127.0.0.1:${port}`;
    await waitForBucket(endpoint, bucket);
    const url = `s3://${bucket}?endpoint=${endpoint}&accessKeyId=${credentials}&secretAccessKey=${credentials}`;
    // s3rver keeps unfinished multipart uploads in <directory>/<bucket>/._S3rver_uploads/<uploadId>/.
    const uploadsDir = join(directory, bucket, "._S3rver_uploads");
    const pendingUploads = () => readdir(uploadsDir).catch(() => [] as string[]);
    const answeredCreates = () =>
      readFile(join(directory, "answered-creates.log"), "utf8").then(
        (text) => text.split("\n").length - 1,
        () => 0,
      );
    const injectFaults = (faults: S3Fault[]) => writeFile(join(directory, "faults.json"), JSON.stringify(faults));
    return { url, endpoint, bucket, accessKeyId: credentials, secretAccessKey: credentials, directory, pendingUploads, answeredCreates, injectFaults, stop };
  } catch (error) {
    await stop();
    throw new Error(`startS3Server: s3rver did not start: ${(error as Error).message}`);
  }
}

async function readPort(stdout: ReadableStream<Uint8Array>, timeoutMs: number): Promise<number> {
  const reader = stdout.getReader();
  const decoder = new TextDecoder();
  const timer = setTimeout(() => reader.cancel(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  let output = "";
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) throw new Error("s3rver exited before listening");
      output += decoder.decode(value, { stream: true });
      const line = output.split("\n")[0];
      if (output.includes("\n") && line) return (JSON.parse(line) as { port: number }).port;
    }
  } finally {
    clearTimeout(timer);
    reader.releaseLock();
  }
}

async function waitForBucket(endpoint: string, bucket: string): Promise<void> {
  const client = new Bun.S3Client({ endpoint, bucket, accessKeyId: credentials, secretAccessKey: credentials });
  await waitUntil(() => client.list({ maxKeys: 1 }).then(() => true), { timeout: readyTimeoutMs, interval: 50, message: "s3rver's bucket to answer" });
}
