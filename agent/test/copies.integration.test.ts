// copies add | list | remove against a real S3 server (s3rver over loopback), run as the user
// runs the agent: the probe writes and deletes, the credentials land in the 0600 config only.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startS3Server, type S3Server } from "../../testkit/s3-server.ts";
import { runAgent } from "./support/run-agent.ts";

let s3: S3Server;
let dir: string;

beforeAll(async () => {
  s3 = await startS3Server({ bucket: "customer-copies" });
  dir = await mkdtemp(join(tmpdir(), "dbvault-copies-"));
});
afterAll(async () => {
  await s3?.stop();
  await rm(dir, { recursive: true, force: true });
});

const destination = () => `s3://customer-copies/dbvault?endpoint=${s3.endpoint}&region=us-east-1`;
const normalized = () => `s3://customer-copies/dbvault/?endpoint=${encodeURIComponent(s3.endpoint)}&region=us-east-1`;
const keys = { AWS_ACCESS_KEY_ID: "S3RVER", AWS_SECRET_ACCESS_KEY: "S3RVER" };

async function listBucket(): Promise<string[]> {
  const client = new Bun.S3Client({ endpoint: s3.endpoint, bucket: "customer-copies", accessKeyId: "S3RVER", secretAccessKey: "S3RVER" });
  return ((await client.list()).contents ?? []).map((object) => object.key);
}

describe("copies add, list, remove", () => {
  test("add probes the bucket, keeps the credentials in the 0600 config, list shows the URL only, remove forgets it", async () => {
    const config = join(dir, "agent.json");
    const added = await runAgent(["copies", "add", destination(), "--config", config], { env: keys });
    expect(added.stderr).toBe(
      `dbvault-agent: wrote and deleted a test object in ${normalized()}\ndbvault-agent: added ${normalized()} to ${config}; a running agent (dbvault-agent run) copies each backup there from its next one\n`,
    );
    expect(added.exitCode).toBe(0);
    expect(await listBucket()).toEqual([]); // the probe object is gone
    expect((await stat(config)).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(await readFile(config, "utf8"));
    expect(saved.copies).toEqual([{ url: normalized(), accessKeyId: "S3RVER", secretAccessKey: "S3RVER" }]);

    const listed = await runAgent(["copies", "list", "--config", config]);
    expect(listed).toMatchObject({ stdout: `${normalized()}\n`, stderr: "", exitCode: 0 });

    const again = await runAgent(["copies", "add", destination(), "--config", config], { env: keys });
    expect(again.stderr).toBe(
      `dbvault-agent: copies add: ${normalized()} is already a copy destination in ${config}\ndbvault-agent: hint: to change its credentials, remove it first: dbvault-agent copies remove URL\n`,
    );
    expect(again.exitCode).toBe(2);

    const removed = await runAgent(["copies", "remove", destination(), "--config", config]);
    expect(removed.stderr).toBe(`dbvault-agent: removed ${normalized()} from ${config}; the copies already written there stay in the bucket\n`);
    expect(removed.exitCode).toBe(0);
    expect(JSON.parse(await readFile(config, "utf8")).copies).toEqual([]);
  });

  test("credentials from an AWS profile", async () => {
    const config = join(dir, "profile.json");
    const credentials = join(dir, "aws-credentials");
    await writeFile(
      credentials,
      "[default]\naws_access_key_id = nope\naws_secret_access_key = nope\n\n[backups]\naws_access_key_id = S3RVER\naws_secret_access_key = S3RVER\n",
    );
    const added = await runAgent(["copies", "add", destination(), "--profile", "backups", "--config", config], {
      env: { AWS_SHARED_CREDENTIALS_FILE: credentials },
    });
    expect(added.exitCode).toBe(0);
    expect(JSON.parse(await readFile(config, "utf8")).copies[0]).toMatchObject({ accessKeyId: "S3RVER", secretAccessKey: "S3RVER" });
  });

  test("wrong credentials: exit 1 with S3's code, nothing saved, the secret never printed", async () => {
    const config = join(dir, "wrong.json");
    const run = await runAgent(["copies", "add", destination(), "--config", config], {
      env: { AWS_ACCESS_KEY_ID: "WRONGKEY", AWS_SECRET_ACCESS_KEY: "wrong-secret-value" },
    });
    expect(run.stderr).toMatch(
      /^dbvault-agent: cannot write to s3:\/\/customer-copies\/dbvault\/\?endpoint=\S+ \((InvalidAccessKeyId|AccessDenied|SignatureDoesNotMatch)\)\ndbvault-agent: hint: check the bucket name, the endpoint and that these credentials may put objects \(s3:PutObject\)\n$/,
    );
    expect(run.stderr).not.toContain("wrong-secret-value");
    expect(run.exitCode).toBe(1);
    expect(await Bun.file(config).exists()).toBe(false);
  });

  test("an endpoint nobody answers: exit 1 saying it is not reachable", async () => {
    const config = join(dir, "down.json");
    const run = await runAgent(["copies", "add", "s3://customer-copies/x?endpoint=http://127.0.0.1:1", "--config", config], { env: keys });
    expect(run.stderr).toMatch(
      /^dbvault-agent: cannot write to s3:\/\/customer-copies\/x\/\?endpoint=http%3A%2F%2F127\.0\.0\.1%3A1: the endpoint is not reachable \(\w+\)\ndbvault-agent: hint: check the endpoint and that the storage service is running\n$/,
    );
    expect(run.exitCode).toBe(1);
  });

  test("a config whose copies entry is damaged is refused naming the field, never the secret", async () => {
    const config = join(dir, "damaged.json");
    await writeFile(config, JSON.stringify({ version: 1, databases: [], copies: [{ url: "s3://b/x/", accessKeyId: 5, secretAccessKey: "hidden-secret" }] }));
    await chmod(config, 0o600);
    const run = await runAgent(["copies", "list", "--config", config]);
    expect(run.stderr).toBe(`dbvault-agent: the config file ${config} is invalid: copies[0].accessKeyId must be a string\n`);
    expect(run.exitCode).toBe(4);
  });
});
