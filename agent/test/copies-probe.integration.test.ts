// `copies add`'s probe object leaves nothing behind in a versioned bucket (issue 46 §7): a plain
// DELETE there only hides it behind a delete marker, and the probe stayed as an old version, for
// ever in a bucket whose default retention locked it. The probe's version is deleted by id; in a
// bucket locked for copies it carries a GOVERNANCE retention of a second instead of the bucket's
// default. On moto (versioning) and SeaweedFS (Object Lock with a COMPLIANCE default retention),
// run as the user runs the agent; the bucket's version listing is read with its own keys.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AwsClient } from "aws4fetch";
import { startTestServer, type TestServer } from "../../server/test/harness.ts";
import { registerScriptedAgent, type ScriptedAgent } from "../../server/test/scripted-agent.ts";
import { findMoto, type MotoServer, startMoto } from "../../testkit/moto-server.ts";
import { findSeaweedFs, type SeaweedFsServer, startSeaweedFs } from "../../testkit/seaweedfs.ts";
import { runAgent } from "./support/run-agent.ts";

setDefaultTimeout(90_000);

const motoMissing = findMoto().missing;
const seaweedMissing = findSeaweedFs().missing;
let moto: MotoServer | undefined;
let seaweed: SeaweedFsServer | undefined;
let server: TestServer;
let agent: ScriptedAgent;
let apiKey: string;
let dir: string;

beforeAll(async () => {
  if (!motoMissing) moto = await startMoto();
  if (!seaweedMissing) seaweed = await startSeaweedFs();
  server = await startTestServer();
  apiKey = (await server.registerUser()).apiKey;
  agent = await registerScriptedAgent(server.listen(), apiKey, ["orders"]);
  dir = await mkdtemp(join(tmpdir(), "dbvault-copies-probe-"));
}, 120_000);
afterAll(async () => {
  await moto?.stop();
  await seaweed?.stop();
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

type S3 = { endpoint: string; accessKeyId: string; secretAccessKey: string; s3: AwsClient };
let configs = 0;

/** A config connected to the server as setup leaves it (`--object-lock` asks it how long backups are kept). */
async function connectedConfig(): Promise<string> {
  const path = join(dir, `agent-${++configs}.json`);
  const connection = { url: server.listen(), apiKey, agentId: agent.agentId, agentToken: agent.agentToken };
  await writeFile(path, JSON.stringify({ version: 1, databases: [], server: connection }), { mode: 0o600 });
  return path;
}

const destination = (s3: S3, bucket: string) => `s3://${bucket}/dbvault?endpoint=${s3.endpoint}&region=us-east-1`;
const add = async (s3: S3, bucket: string, ...options: string[]) =>
  runAgent(["copies", "add", destination(s3, bucket), ...options, "--config", await connectedConfig()], {
    env: { AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey },
  });

/** Every version and delete marker under the bucket's dbvault/ prefix, as ListObjectVersions names them. */
async function versionsIn(s3: S3, bucket: string): Promise<string[]> {
  const answer = await s3.s3.fetch(`${s3.endpoint}/${bucket}?versions&prefix=dbvault/`);
  expect(answer.status).toBe(200);
  const xml = await answer.text();
  return [...xml.matchAll(/<(Version|DeleteMarker)>[\s\S]*?<Key>([^<]*)<\/Key>[\s\S]*?<\/\1>/g)].map((match) => `${match[1]} ${match[2]}`);
}

async function defaultRetention(s3: S3, bucket: string, mode: "GOVERNANCE" | "COMPLIANCE", days: number) {
  const body = `<ObjectLockConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule><DefaultRetention><Mode>${mode}</Mode><Days>${days}</Days></DefaultRetention></Rule></ObjectLockConfiguration>`;
  const md5 = createHash("md5").update(body).digest("base64");
  const answer = await s3.s3.fetch(`${s3.endpoint}/${bucket}?object-lock`, { method: "PUT", body, headers: { "Content-MD5": md5 } });
  expect(answer.status).toBe(200);
}

describe("the probe of copies add", () => {
  test.skipIf(motoMissing !== null)("a versioned bucket keeps no version and no delete marker of it (moto)", async () => {
    await moto!.createBucket("versioned-copies", { objectLock: false, versioning: true });
    const added = await add(moto!, "versioned-copies");
    expect(added.stderr).toStartWith("dbvault-agent: wrote and deleted a test object in s3://versioned-copies/dbvault/");
    expect(added.exitCode).toBe(0);
    expect(await versionsIn(moto!, "versioned-copies")).toEqual([]);
  });

  test.skipIf(seaweedMissing !== null)("a bucket locked for copies, with a COMPLIANCE default retention, keeps nothing of it either (SeaweedFS)", async () => {
    await seaweed!.createBucket("locked-copies");
    await defaultRetention(seaweed!, "locked-copies", "COMPLIANCE", 10);
    const added = await add(seaweed!, "locked-copies", "--object-lock", "compliance");
    expect(added.stderr).toStartWith("dbvault-agent: wrote and deleted a test object in s3://locked-copies/dbvault/");
    expect(added.exitCode).toBe(0);
    expect(await versionsIn(seaweed!, "locked-copies")).toEqual([]);
  });

  test.skipIf(motoMissing !== null)(
    "a locked bucket added without --object-lock: the version its default retention locks is named, with what to do",
    async () => {
      await moto!.createBucket("default-locked");
      await defaultRetention(moto!, "default-locked", "COMPLIANCE", 10);
      const added = await add(moto!, "default-locked");
      expect(added.exitCode).toBe(0);
      const [version] = await versionsIn(moto!, "default-locked");
      expect(version).toMatch(/^Version dbvault\/\.dbvault-probe-[0-9a-f]{12}$/);
      expect(added.stderr).toMatch(
        /^dbvault-agent: wrote a test object in s3:\/\/default-locked\/dbvault\/\S+ and hid it behind a delete marker\ndbvault-agent: warning: the bucket keeps the test object dbvault\/\.dbvault-probe-[0-9a-f]{12} as version \S+ \(AccessDenied\): its default retention locks it, or these credentials lack s3:DeleteObjectVersion; delete that version by its id once its retention ends, or let a lifecycle rule expire noncurrent versions\n/,
      );
    },
  );
});
