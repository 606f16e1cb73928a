// backup.copied: an agent's report of a backup file written to the customer's own bucket. The
// server keeps the label, key, size, SHA-256 and status, and refuses what is off the schema, a
// label that could carry a credential, and a report about another agent's backup. Over a real
// WebSocket with a scripted agent.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Logger } from "../src/lib/logger";
import { waitUntil } from "../../testkit/wait-until";
import { startTestServer, type TestServer, type TestUser } from "./harness";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

let server: TestServer;
let owner: TestUser;
let agent: ScriptedAgent;
let stranger: ScriptedAgent;
const logged: string[] = [];
const recorder: Logger = {
  debug: (message, fields) => void logged.push(`${message} ${JSON.stringify(fields)}`),
  info: (message, fields) => void logged.push(`${message} ${JSON.stringify(fields)}`),
  warn: (message, fields) => void logged.push(`${message} ${JSON.stringify(fields)}`),
  error: (message, fields) => void logged.push(`${message} ${JSON.stringify(fields)}`),
};

beforeAll(async () => {
  server = await startTestServer();
  const base = server.listen();
  owner = await server.registerUser();
  agent = await registerScriptedAgent(base, owner.apiKey, ["orders"]);
  await agent.connect();
  const other = await server.registerUser();
  stranger = await registerScriptedAgent(base, other.apiKey, ["orders"]);
  await stranger.connect();
}, 60_000);
afterAll(async () => {
  await agent?.disconnect();
  await stranger?.disconnect();
  await server?.close();
});

const destination = "s3://customer-offsite/dbvault/?endpoint=https%3A%2F%2Fs3.example.com&region=eu-west-1";
const sha256 = "ab".repeat(32);

test("a copy report is recorded and shown with the backup; bad ones are ignored, never stored", async () => {
  const started = await server.call("POST", "/api/backups", { token: owner.token, body: { databaseName: "orders" } });
  expect(started.status).toBe(201);
  const command = await agent.waitFor("backup");
  expect(command.fileName).toBe(`backup-orders-${started.body.createdAt}.enc.dbvault`);
  const { backupId } = command;
  server.ctx.log = recorder;
  const copied = { type: "backup.copied", backupId, destination, key: "dbvault/orders/backup.enc.dbvault", status: "stored", size: 1234, sha256 };

  stranger.send({ ...copied, destination: "s3://stranger/x/" }); // not its backup
  agent.send({ ...copied, destination: "s3://AKIASTOLEN:stolen-secret@customer-offsite/x/" });
  agent.send({ ...copied, destination: "s3://customer-offsite/x/?secretAccessKey=stolen-secret" });
  agent.send({ ...copied, destination: "s3://bad-sha/x/", sha256: "not-a-hash" });
  agent.send({ ...copied, destination: "s3://bad-size/x/", size: -1 });
  agent.send({ ...copied, destination: "s3://bad-status/x/", status: "maybe" });
  agent.send(copied);
  agent.send({ type: "backup.copied", backupId, destination: "s3://second-place/y/", key: "y/orders/f", status: "failed", error: "NoSuchBucket" });

  const copies = await waitUntil(
    async () => {
      const backup = (await server.call("GET", `/api/backups/${backupId}`, { token: owner.token })).body;
      return backup.copies.length === 2 ? backup.copies : undefined;
    },
    { message: "both good copy reports to be recorded" },
  );
  expect(copies).toEqual([
    { destination, key: "dbvault/orders/backup.enc.dbvault", status: "stored", size: 1234, sha256, error: null },
    { destination: "s3://second-place/y/", key: "y/orders/f", status: "failed", size: null, sha256: null, error: "NoSuchBucket" },
  ]);
  const listed = (await server.call("GET", "/api/backups", { token: owner.token })).body;
  expect(listed.find((row: { id: string }) => row.id === backupId).copies).toEqual(copies);

  // A report for a destination seen before updates it rather than adding a row.
  agent.send({ ...copied, destination: "s3://second-place/y/", key: "y/orders/f" });
  await waitUntil(async () => (await server.call("GET", `/api/backups/${backupId}`, { token: owner.token })).body.copies[1].status === "stored", {
    message: "the retried copy to be recorded stored",
  });

  expect(logged.filter((line) => line.startsWith("ignored a backup copy report")).length).toBe(2);
  expect(logged.filter((line) => line.startsWith("ignored a malformed agent message")).length).toBe(3);
  expect(logged.join("\n")).not.toContain("stolen-secret");
  expect(logged.join("\n")).not.toContain("AKIASTOLEN");
});

test("asking to remove a copy destination: allowed without Protect backups; bad input is a 4xx that never echoes a secret", async () => {
  const ask = (body: unknown, headers: Record<string, string> = agent.headers()) =>
    fetch(`${server.listen()}/api/agent/copies/removal`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const allowed = await ask({ destination });
  expect(allowed.status).toBe(200);
  expect(await allowed.json()).toEqual({ allowed: true });
  const withSecret = await ask({ destination: "s3://AKIASTOLEN:stolen-secret@customer-offsite/x/" });
  expect(withSecret.status).toBe(400);
  const text = await withSecret.text();
  expect(text).toContain("The copy destination must be the agent's s3:// label: this one holds credentials.");
  expect(text).not.toContain("stolen-secret");
  expect((await ask({})).status).toBe(400);
  expect((await ask({ destination }, {})).status).toBe(401);
});
