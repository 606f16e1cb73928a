// moto's S3 server (PyPI moto[server], installed by scripts/ensure-moto.sh) as the test server
// that enforces S3 Object Lock: a DELETE of a locked version answers AccessDenied, GOVERNANCE
// gives way only to x-amz-bypass-governance-retention. One process per start, on a free loopback
// port, state in memory (gone when it stops).
//
// What moto 5.2.5 does not enforce, so no test here can rely on it: PutObjectRetention is taken
// as asked, so a shortened COMPLIANCE retention is NOT refused as AWS, MinIO or SeaweedFS refuse
// it (moto/s3/models.py put_object_retention sets the date without a check). The tests of that
// run on SeaweedFS (testkit/seaweedfs.ts).
import { AwsClient } from "aws4fetch";
import { findBuiltPrograms } from "./built-programs";
import { waitUntil } from "./wait-until";

export const MOTO_VERSION = "5.2.5";

export type MotoServer = {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Creates a bucket, with Object Lock (and so versioning) enabled unless told otherwise; returns its STORAGE_URL. */
  createBucket(name: string, options?: { objectLock?: boolean; versioning?: boolean }): Promise<string>;
  /** Signed requests with the bucket's own credentials (what a thief of the server's S3 keys holds). */
  s3: AwsClient;
  stop(): Promise<void>;
};

/** The moto_server program, or why it is missing (to name in a skipped test). */
export function findMoto(): { path: string; missing: null } | { path: null; missing: string } {
  const found = findBuiltPrograms("moto", MOTO_VERSION, ["moto_server"], `moto ${MOTO_VERSION}`);
  return found.missing === null ? { path: found.paths.moto_server, missing: null } : { path: null, missing: found.missing };
}

export async function startMoto(): Promise<MotoServer> {
  const { path, missing } = findMoto();
  if (missing !== null) throw new Error(missing);
  // Port 0: the OS picks a free one and werkzeug prints it ("Running on http://127.0.0.1:PORT").
  const child = Bun.spawn([path, "-H", "127.0.0.1", "-p", "0"], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const killOnExit = () => child.kill();
  process.once("exit", killOnExit);
  let output = "";
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) output += decoder.decode(chunk, { stream: true });
  };
  void collect(child.stdout);
  void collect(child.stderr);
  let stopping = false;
  // A server that dies under a test shows only as refused connections: say why it went.
  void child.exited.then((code) => {
    if (!stopping) console.error(`moto_server exited unexpectedly (code ${code}); its last output:\n${output.slice(-4000)}`);
  });
  const stop = async () => {
    stopping = true;
    process.off("exit", killOnExit);
    child.kill();
    await child.exited;
  };
  try {
    const port = await waitUntil(
      () => {
        if (child.exitCode !== null) throw new Error(`moto_server exited with ${child.exitCode}`);
        return /Running on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1];
      },
      { timeout: 30_000, interval: 50, message: "moto_server to listen" },
    );
    const endpoint = `http://127.0.0.1:${port}`;
    const accessKeyId = "dbvault-test";
    const secretAccessKey = "dbvault-test-secret";
    const s3 = new AwsClient({ accessKeyId, secretAccessKey, region: "us-east-1", service: "s3" });
    const createBucket = async (name: string, options: { objectLock?: boolean; versioning?: boolean } = {}) => {
      const headers: Record<string, string> = options.objectLock === false ? {} : { "x-amz-bucket-object-lock-enabled": "true" };
      const created = await s3.fetch(`${endpoint}/${name}`, { method: "PUT", headers });
      if (!created.ok) throw new Error(`moto: creating bucket ${name} answered ${created.status}: ${await created.text()}`);
      if (options.versioning) {
        const body = `<VersioningConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Status>Enabled</Status></VersioningConfiguration>`;
        const versioned = await s3.fetch(`${endpoint}/${name}?versioning`, { method: "PUT", body });
        if (!versioned.ok) throw new Error(`moto: versioning ${name} answered ${versioned.status}`);
      }
      return `s3://${name}?endpoint=${endpoint}&accessKeyId=${accessKeyId}&secretAccessKey=${secretAccessKey}`;
    };
    return { endpoint, accessKeyId, secretAccessKey, createBucket, s3, stop };
  } catch (error) {
    await stop();
    throw new Error(`startMoto: ${(error as Error).message}\n${output}`);
  }
}
