// STORAGE_OBJECT_LOCK at start-up, as an operator meets it: the real server process refuses a
// setting it cannot keep (a file:// storage, a bucket without versioning or Object Lock), saying
// what is missing, and starts on a bucket that has both.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findMoto, type MotoServer, startMoto } from "../../testkit/moto-server";
import { spawnServer, startServer, stopServer } from "../../testkit/server-process";

const { missing } = findMoto();
const dataDir = mkdtempSync(join(tmpdir(), "dbvault-lock-start-"));
let moto: MotoServer | undefined;
beforeAll(async () => {
  if (!missing) moto = await startMoto();
});
afterAll(async () => {
  await moto?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test("the setting with file:// storage, or an unknown mode, is refused with the other variables before anything starts", async () => {
  const server = spawnServer({ DATA_DIR: dataDir, STORAGE_URL: `file://${dataDir}/backups`, STORAGE_OBJECT_LOCK: "compliance", LOG_LEVEL: "loud" });
  expect(await server.exited).toBe(2);
  const listed = server
    .output()
    .split("\n")
    .filter((line) => line.startsWith("  - "));
  expect(listed).toEqual([
    "  - STORAGE_OBJECT_LOCK: the file (file://) backend cannot lock objects; use an s3:// STORAGE_URL whose bucket has Object Lock enabled, or leave STORAGE_OBJECT_LOCK unset",
    expect.stringContaining("LOG_LEVEL must be"),
  ]);
  const unknown = spawnServer({ DATA_DIR: dataDir, STORAGE_OBJECT_LOCK: "forever" });
  expect(await unknown.exited).toBe(2);
  expect(unknown.output()).toContain('  - STORAGE_OBJECT_LOCK must be compliance or governance, or unset for no lock (got "forever")');
}, 60_000);

test.skipIf(missing !== null)(
  `a bucket without versioning and Object Lock stops the start naming both; one with them starts${missing ? ` (skipped: ${missing})` : ""}`,
  async () => {
    const plain = await moto!.createBucket("no-lock-here", { objectLock: false });
    const refused = spawnServer({ DATA_DIR: dataDir, STORAGE_URL: plain, STORAGE_OBJECT_LOCK: "governance" });
    expect(await refused.exited).toBe(1);
    const output = refused.output();
    expect(output).toContain(
      "dbvault-server: STORAGE_OBJECT_LOCK=governance needs a bucket with versioning and Object Lock enabled; this bucket has no versioning and no Object Lock. " +
        "Object Lock can only be enabled on a new bucket (or by AWS support): create one with it (aws s3api create-bucket --object-lock-enabled-for-bucket), or unset STORAGE_OBJECT_LOCK.",
    );
    expect(output).not.toMatch(/\n\s+at /); // no stack trace
    expect(output).not.toContain(moto!.secretAccessKey);

    const locked = await moto!.createBucket("locked-for-start");
    const started = await startServer({ DATA_DIR: dataDir, STORAGE_URL: locked, STORAGE_OBJECT_LOCK: "governance" });
    expect(await stopServer(started)).toBe(0);
  },
  120_000,
);
