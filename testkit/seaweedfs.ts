// SeaweedFS's S3 gateway (built from its Go source by scripts/ensure-seaweedfs.sh into a cache
// outside the repo) as the Object Lock server for what moto does not enforce: a PutObjectRetention
// that shortens a COMPLIANCE retention (or a GOVERNANCE one without the bypass header) answers
// AccessDenied. Each start runs one `weed server` (master, volume, filer, S3) on free loopback
// ports over a private temporary directory, telemetry off, one identity with the bucket's keys;
// everything is removed when it stops.
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AwsClient } from "aws4fetch";
import { findBuiltPrograms } from "./built-programs";
import { findFreePort } from "./server-process";
import { stopChild } from "./stop-child";
import { waitUntil } from "./wait-until";

export const SEAWEEDFS_VERSION = "v0.0.0-20261109003541-7506e5f91cd6";

export type SeaweedFsServer = {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Creates a bucket with Object Lock (and so versioning) enabled; returns its STORAGE_URL. */
  createBucket(name: string): Promise<string>;
  /** Signed requests with the bucket's own credentials (what a thief of the server's S3 keys holds). */
  s3: AwsClient;
  stop(): Promise<void>;
};

/** The weed program, or why it is missing (to name in a skipped test). */
export function findSeaweedFs(): { path: string; missing: null } | { path: null; missing: string } {
  const found = findBuiltPrograms("seaweedfs", SEAWEEDFS_VERSION, ["weed"], `SeaweedFS ${SEAWEEDFS_VERSION}`);
  return found.missing === null ? { path: found.paths.weed, missing: null } : { path: null, missing: found.missing };
}

export async function startSeaweedFs(): Promise<SeaweedFsServer> {
  const { path, missing } = findSeaweedFs();
  if (missing !== null) throw new Error(missing);
  const directory = await mkdtemp(join(tmpdir(), "dbvault-seaweedfs-"));
  const accessKeyId = "dbvault-test";
  const secretAccessKey = "dbvault-test-secret";
  // One identity, every action: the server's own keys, so governance bypass is allowed to it too.
  const config = {
    identities: [
      { name: "dbvault", credentials: [{ accessKey: accessKeyId, secretKey: secretAccessKey }], actions: ["Admin", "Read", "List", "Tagging", "Write"] },
    ],
  };
  await writeFile(join(directory, "s3.json"), JSON.stringify(config));
  // Each service takes an HTTP and a gRPC port; every one is chosen free rather than left to the
  // defaults (fixed ports, and gRPC at HTTP + 10000), so instances and other suites never collide.
  const port = () => String(findFreePort());
  const s3Port = port();
  const child = spawn(
    path,
    [
      "server",
      `-dir=${directory}`,
      "-ip=127.0.0.1",
      "-ip.bind=127.0.0.1",
      "-master.telemetry=false",
      `-master.port=${port()}`,
      `-master.port.grpc=${port()}`,
      "-master.volumeSizeLimitMB=64",
      `-volume.port=${port()}`,
      `-volume.port.grpc=${port()}`,
      "-filer",
      `-filer.port=${port()}`,
      `-filer.port.grpc=${port()}`,
      "-s3",
      `-s3.port=${s3Port}`,
      `-s3.port.grpc=${port()}`,
      "-s3.port.iceberg=0",
      "-s3.port.lance=0",
      `-s3.config=${join(directory, "s3.json")}`,
    ],
    { cwd: directory, stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "", HOME: directory } },
  );
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output = (output + chunk.toString("utf8")).slice(-20_000)));
  child.stderr!.on("data", (chunk: Buffer) => (output = (output + chunk.toString("utf8")).slice(-20_000)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  const stop = async () => {
    process.off("exit", killOnExit);
    await stopChild(child, exited);
    await rm(directory, { recursive: true, force: true });
  };

  const endpoint = `http://127.0.0.1:${s3Port}`;
  const s3 = new AwsClient({ accessKeyId, secretAccessKey, region: "us-east-1", service: "s3" });
  const createBucket = async (name: string) => {
    const created = await s3.fetch(`${endpoint}/${name}`, { method: "PUT", headers: { "x-amz-bucket-object-lock-enabled": "true" } });
    if (!created.ok) throw new Error(`seaweedfs: creating bucket ${name} answered ${created.status}: ${await created.text()}`);
    return `s3://${name}?endpoint=${endpoint}&accessKeyId=${accessKeyId}&secretAccessKey=${secretAccessKey}`;
  };
  try {
    // Ready once S3 answers a signed request and a volume takes a write (the volume server
    // registers with the master a moment after the gateway listens).
    const probe = "dbvault-ready-probe";
    await waitUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`weed exited with ${child.exitCode}`);
        const listed = await s3.fetch(`${endpoint}/`).catch(() => null);
        if (!listed?.ok) return false;
        await s3.fetch(`${endpoint}/${probe}`, { method: "PUT" }).catch(() => null);
        const put = await s3.fetch(`${endpoint}/${probe}/ready`, { method: "PUT", body: "ready" }).catch(() => null);
        return put?.ok === true;
      },
      { timeout: 60_000, interval: 200, message: "SeaweedFS's S3 gateway to take a write" },
    );
    return { endpoint, accessKeyId, secretAccessKey, createBucket, s3, stop };
  } catch (error) {
    await stop();
    throw new Error(`startSeaweedFs: ${(error as Error).message}\n${output.slice(-4000)}`);
  }
}
