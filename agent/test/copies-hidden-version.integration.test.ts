// A copy in the customer's own locked bucket, hidden by someone holding the bucket's credentials
// (they sit on the database host): a delete marker, or other bytes of the same size put over it
// (issue 46 §3). COMPLIANCE Object Lock keeps the version the agent wrote, and `restore` /
// `decrypt --from-copy` read it by its version id, naming it and the command that makes it current
// again, instead of "NoSuchKey" with a hint about credentials or "not a dbvault backup file". On
// SeaweedFS with Object Lock; the copy is written as the agent writes a locked copy.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAGIC } from "../src/archive/format.ts";
import type { CommandContext } from "../src/commands/context.ts";
import { fetchFromCopy } from "../src/commands/from-copy.ts";
import type { AgentConfig } from "../src/config.ts";
import { checkCopies } from "../src/copies/copy-check.ts";
import type { CopyEntry } from "../src/copies/copy-destination.ts";
import { putLockedCopy } from "../src/copies/copy-object-lock.ts";
import { findSeaweedFs, type SeaweedFsServer, startSeaweedFs } from "../../testkit/seaweedfs.ts";

const { missing } = findSeaweedFs();
const BUCKET = "customer-locked";

let s3: SeaweedFsServer;
let dir: string;
let entry: CopyEntry;

beforeAll(async () => {
  if (missing) return;
  s3 = await startSeaweedFs();
  await s3.createBucket(BUCKET);
  dir = await mkdtemp(join(tmpdir(), "dbvault-hidden-copy-"));
  entry = {
    url: `s3://${BUCKET}/offsite/?endpoint=${s3.endpoint}&region=us-east-1`,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    objectLock: { mode: "compliance", retainDays: 1 },
  };
}, 120_000);
afterAll(async () => {
  await s3?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A locked copy of a file that starts as a backup file does; answers its key and bytes. */
async function lockedCopy(name: string): Promise<{ key: string; bytes: Buffer }> {
  const bytes = Buffer.concat([MAGIC, randomBytes(5000)]);
  const path = join(dir, name);
  await writeFile(path, bytes);
  const key = `offsite/shop/${name}.enc.dbvault`;
  await putLockedCopy(entry, key, path, entry.objectLock!);
  return { key, bytes };
}

/** Runs the --from-copy fetch as `restore` does; answers the bytes read and what it printed. */
async function fetchCopy(key: string): Promise<{ bytes: Buffer; printed: string[] }> {
  const printed: string[] = [];
  const context = {
    say: (line: string) => void printed.push(line),
    warn: (line: string) => void printed.push(`warning: ${line}`),
  } as unknown as CommandContext;
  const config = { version: 1, databases: [], copies: [entry] } as unknown as AgentConfig;
  const fetched = await fetchFromCopy("restore", config, "agent.json", `s3://${BUCKET}/${key}`, context);
  try {
    return { bytes: await readFile(fetched.path), printed };
  } finally {
    await fetched.discard();
  }
}

/** The id of the current entry (version or delete marker) of `key`. */
async function currentVersion(key: string): Promise<string> {
  const xml = await (await s3.s3.fetch(`${s3.endpoint}/${BUCKET}?versions&prefix=${encodeURIComponent(key)}`)).text();
  const latest = [...xml.matchAll(/<(?:Version|DeleteMarker)>([\s\S]*?)<\/(?:Version|DeleteMarker)>/g)].find((match) => match[1]!.includes("<IsLatest>true"));
  return /<VersionId>([^<]*)<\/VersionId>/.exec(latest![1]!)![1]!;
}

describe.skipIf(missing !== null)(`a copy hidden in the customer's locked bucket${missing ? ` [skipped: ${missing}]` : ""}`, () => {
  test("behind a delete marker: its locked version is read, named, and how to bring it back is said", async () => {
    const { key, bytes } = await lockedCopy("marked");
    expect((await s3.s3.fetch(`${s3.endpoint}/${BUCKET}/${key}`, { method: "DELETE" })).status).toBe(204);
    const marker = await currentVersion(key);

    const { bytes: read, printed } = await fetchCopy(key);
    expect(read.equals(bytes)).toBe(true);
    expect(printed[0]).toStartWith(`read ${key} (`);
    expect(printed[1]).toMatch(
      new RegExp(`^warning: the copy is hidden behind a delete marker \\(version ${marker}\\); its earlier version \\S+ is intact and was read$`),
    );
    expect(printed[2]).toBe(`to make that version current again: aws s3api delete-object --bucket ${BUCKET} --key ${key} --version-id ${marker}`);
    expect(printed[3]).toBe("then change the bucket's credentials: whoever hid the copy holds them");
  }, 60_000);

  test("overwritten with other bytes of the same size: the locked version is read, not the overwrite", async () => {
    const { key, bytes } = await lockedCopy("overwritten");
    const versionWritten = await currentVersion(key);
    const other = randomBytes(bytes.length);
    expect((await s3.s3.fetch(`${s3.endpoint}/${BUCKET}/${key}`, { method: "PUT", body: other })).status).toBe(200);
    const overwrite = await currentVersion(key);
    expect(overwrite).not.toBe(versionWritten);

    const { bytes: read, printed } = await fetchCopy(key);
    expect(read.equals(bytes)).toBe(true);
    expect(printed[1]).toBe(
      `warning: the copy was overwritten (its current version ${overwrite} is not a dbvault backup file); its earlier version ${versionWritten} was read`,
    );
    expect(printed[2]).toBe(
      `to make that version current again: aws s3api copy-object --bucket ${BUCKET} --key ${key} --copy-source "${BUCKET}/${key}?versionId=${versionWritten}"`,
    );
  }, 60_000);

  test("copies check names the version written, still stored under a delete marker or an overwrite", async () => {
    const marked = await lockedCopy("checked-marked");
    const overwritten = await lockedCopy("checked-overwritten");
    const writtenVersions = [await currentVersion(marked.key), await currentVersion(overwritten.key)];
    await s3.s3.fetch(`${s3.endpoint}/${BUCKET}/${marked.key}`, { method: "DELETE" });
    await s3.s3.fetch(`${s3.endpoint}/${BUCKET}/${overwritten.key}`, { method: "PUT", body: randomBytes(overwritten.bytes.length) });
    const currents = [await currentVersion(marked.key), await currentVersion(overwritten.key)];
    const copies = [marked, overwritten].map(({ key, bytes }) => ({
      backupId: key,
      databaseName: "shop",
      destination: entry.url,
      key,
      status: "stored" as const,
      size: bytes.length,
      sha256: null,
      etag: createHash("md5").update(bytes).digest("hex"),
      checkedAt: null,
    }));

    const { results } = await checkCopies([entry], copies, { sample: 0 });
    expect(results.map((checked) => [checked.outcome, checked.detail])).toEqual([
      [
        "missing",
        `the bucket has no object ${marked.key} (NoSuchKey); the version written, ${writtenVersions[0]}, is still stored under a delete marker (${currents[0]}): restore --from-copy reads it; to make it current again: aws s3api delete-object --bucket ${BUCKET} --key ${marked.key} --version-id ${currents[0]}`,
      ],
      [
        "changed",
        expect.stringMatching(
          new RegExp(
            `^its ETag is \\w+ instead of \\w+: other bytes were written over it; the version written, ${writtenVersions[1]}, is still stored under a newer version \\(${currents[1]}\\): restore --from-copy reads it; to make it current again: aws s3api copy-object `,
          ),
        ),
      ],
    ]);
  }, 60_000);

  test("a copy never written is still reported missing", async () => {
    const error = await fetchCopy("offsite/shop/never.enc.dbvault").catch((caught: Error) => caught);
    expect((error as Error).message).toBe(`cannot read offsite/shop/never.enc.dbvault from ${entry.url} (NoSuchKey)`);
  }, 60_000);
});
