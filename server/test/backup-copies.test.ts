// backup.copied: an agent's report of a backup file written to the customer's own bucket. The
// server keeps the label, key, size, SHA-256 and status, and refuses what is off the schema, a
// label that could carry a credential, and a report about another agent's backup. Over a real
// WebSocket with a scripted agent.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { agentApi } from "@protocol/agent-protocol";
import type { Logger } from "../src/lib/logger";
import { waitUntil } from "../../testkit/wait-until";
import { startWebhookReceiver, type WebhookReceiver } from "../../testkit/webhook-receiver";
import { advanceServerClock, startTestServer, type TestServer, type TestUser } from "./harness";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

let server: TestServer;
let owner: TestUser;
let agent: ScriptedAgent;
let stranger: ScriptedAgent;
let receiver: WebhookReceiver;
const logged: string[] = [];
const recorder: Logger = {
  debug: (message, fields) => void logged.push(`${message} ${JSON.stringify(fields)}`),
  info: (message, fields) => void logged.push(`${message} ${JSON.stringify(fields)}`),
  warn: (message, fields) => void logged.push(`${message} ${JSON.stringify(fields)}`),
  error: (message, fields) => void logged.push(`${message} ${JSON.stringify(fields)}`),
};

beforeAll(async () => {
  receiver = startWebhookReceiver();
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: "true" });
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
  receiver?.close();
});

/** A backup of "orders" the scripted agent uploaded `size` bytes for; its id. */
async function completedBackup(size: number): Promise<string> {
  advanceServerClock(server, 24 * 3600_000); // past the plan's limit on manual backups
  const started = await server.call("POST", "/api/backups", { token: owner.token, body: { databaseName: "orders" } });
  expect(started.status).toBe(201);
  const { backupId } = await agent.waitFor("backup");
  expect((await agent.upload(backupId, new Uint8Array(size).fill(7))).status).toBe(200);
  return backupId;
}

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
    {
      destination,
      key: "dbvault/orders/backup.enc.dbvault",
      status: "stored",
      size: 1234,
      sha256,
      error: null,
      checkedAt: expect.any(String),
      lockedUntil: null,
    },
    {
      destination: "s3://second-place/y/",
      key: "y/orders/f",
      status: "failed",
      size: null,
      sha256: null,
      error: "NoSuchBucket",
      checkedAt: null,
      lockedUntil: null,
    },
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

test("the daily copy check: the agent lists its copies, reports what it found; a copy newly missing or changed is mailed and raised once", async () => {
  const hook = await server.call("POST", "/api/settings/webhooks", {
    token: owner.token,
    body: { url: `${receiver.url}/copies`, events: ["copy.missing", "copy.changed"] },
  });
  expect(hook.status).toBe(201);
  // The first test's backup never completed: it fails now (its copy stays, never one to check).
  for (const backup of (await server.call("GET", "/api/backups", { token: owner.token })).body) {
    agent.send({ type: "backup.failed", backupId: backup.id, error: "the test moved on" });
  }
  await waitUntil(
    async () => (await server.call("GET", "/api/backups", { token: owner.token })).body.every((backup: { status: string }) => backup.status === "failed"),
    {
      message: "the first backup to be failed",
    },
  );
  const backupId = await completedBackup(2048);
  const second = "s3://second-bucket/?region=eu-west-1";
  const report = { type: "backup.copied", backupId, status: "stored", size: 2048, sha256 };
  agent.send({ ...report, destination, key: "dbvault/orders/b.enc.dbvault", etag: '"0123abcd"' });
  // The second bucket locks its copies (copies add --object-lock): the date is shown with the copy.
  agent.send({ ...report, destination: second, key: "orders/b.enc.dbvault", lockedUntil: "2027-01-01T00:00:00.000Z" });
  const call = (method: string, path: string, body?: unknown, who: ScriptedAgent = agent) =>
    fetch(`${server.listen()}${path}`, {
      method,
      headers: { ...who.headers(), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const listed = await waitUntil(
    async () => {
      const answer = (await (await call("GET", agentApi.copies)).json()) as any;
      return answer.copies.filter((copy: { backupId: string }) => copy.backupId === backupId).length === 2 ? answer : undefined;
    },
    { message: "both copies to be listed for the check" },
  );
  expect(listed.copies.find((copy: { destination: string; backupId: string }) => copy.destination === destination && copy.backupId === backupId)).toEqual({
    backupId,
    databaseName: "orders",
    destination,
    key: "dbvault/orders/b.enc.dbvault",
    status: "stored",
    size: 2048,
    sha256,
    etag: '"0123abcd"',
    checkedAt: expect.any(String),
  });
  // The first test's backup failed: its copy is not one to check. Another account's agent lists none of these.
  expect(listed.copies.every((copy: { backupId: string }) => copy.backupId === backupId)).toBe(true);
  expect(listed.due).toBe(false); // written just now
  expect(((await (await call("GET", agentApi.copies, undefined, stranger)).json()) as any).copies).toEqual([]);
  advanceServerClock(server, 25 * 3600_000);
  expect(((await (await call("GET", agentApi.copies)).json()) as any).due).toBe(true);

  const found = [
    { backupId, destination, outcome: "missing", readBack: false, detail: "the bucket has no object dbvault/orders/b.enc.dbvault (NoSuchKey)" },
    { backupId, destination: second, outcome: "changed", readBack: true, detail: "its SHA-256 is 00 instead of ab" },
  ];
  // Another account's agent reporting on these copies changes nothing.
  const foreign = await call("POST", agentApi.copyChecks, { results: found }, stranger);
  expect(await foreign.json()).toEqual({ recorded: 0, alerts: 0 });
  const checked = await call("POST", agentApi.copyChecks, { results: found });
  expect(checked.status).toBe(200);
  expect(await checked.json()).toEqual({ recorded: 2, alerts: 2 });
  const copies = (await server.call("GET", `/api/backups/${backupId}`, { token: owner.token })).body.copies;
  expect(copies.map((copy: { status: string; error: string }) => [copy.status, copy.error])).toEqual([
    ["missing", "the bucket has no object dbvault/orders/b.enc.dbvault (NoSuchKey)"],
    ["changed", "its SHA-256 is 00 instead of ab"],
  ]);
  expect(((await (await call("GET", agentApi.copies)).json()) as any).due).toBe(false);

  const missingMail = await waitUntil(() => server.sentMail.find((mail) => mail.subject === 'Backup copies missing: "orders"'), {
    message: "the missing-copy mail",
  });
  expect(missingMail.to).toBe(owner.email);
  expect(missingMail.text).toContain(`- dbvault/orders/b.enc.dbvault in s3://customer-offsite/dbvault/ (backup ${backupId}): the bucket has no object`);
  expect(server.sentMail.some((mail) => mail.subject === 'Backup copies changed: "orders"')).toBe(true);
  const deliveries = await waitUntil(() => (receiver.received.length >= 2 ? receiver.received : undefined), { message: "both webhook deliveries" });
  const missingEvent = deliveries.find((delivery) => delivery.event === "copy.missing")!;
  expect(missingEvent.body.copies).toEqual([{ backupId, databaseName: "orders", destination, key: "dbvault/orders/b.enc.dbvault", detail: found[0]!.detail }]);
  expect(deliveries.find((delivery) => delivery.event === "copy.changed")!.body.copies[0].destination).toBe(second);

  // Found the same the next day: recorded, not raised again. Unreachable keeps the status and says why.
  advanceServerClock(server, 25 * 3600_000);
  const again = await call("POST", agentApi.copyChecks, {
    results: [found[0], { backupId, destination: second, outcome: "unreachable", readBack: false, detail: "AccessDenied" }],
  });
  expect(await again.json()).toEqual({ recorded: 2, alerts: 0 });
  const after = (await server.call("GET", `/api/backups/${backupId}`, { token: owner.token })).body.copies;
  expect(after[1]).toMatchObject({ status: "changed", error: "The last check could not reach the bucket: AccessDenied" });
  // Checked all the same: not due again before a day has passed (a down bucket is not read back hourly).
  expect(((await (await call("GET", agentApi.copies)).json()) as any).due).toBe(false);
  // Put back as written: stored again, quietly.
  const back = await call("POST", agentApi.copyChecks, { results: [{ backupId, destination, outcome: "present", readBack: true }] });
  expect(await back.json()).toEqual({ recorded: 1, alerts: 0 });
  expect((await server.call("GET", `/api/backups/${backupId}`, { token: owner.token })).body.copies[0]).toMatchObject({ status: "stored", error: null });
  expect(receiver.received.length).toBe(2);

  // Bad input: 4xx with a message, never a 500; no credentials, no 200.
  for (const body of [{}, { results: [] }, { results: [{ ...found[0], outcome: "gone" }] }, { results: [{ ...found[0], destination: "" }] }]) {
    const refused = await call("POST", agentApi.copyChecks, body);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { message: string }).message).toBeTruthy();
  }
  expect((await fetch(`${server.listen()}${agentApi.copies}`)).status).toBe(401);
});

test("a database's copies for the web: each backup's copies with bucket, key, size, status and last check; only the owner's", async () => {
  const listed = await server.call("GET", "/api/backups/copies?databaseName=orders", { token: owner.token });
  expect(listed.status).toBe(200);
  expect(listed.body.databaseName).toBe("orders");
  const backupsOfOrders = (await server.call("GET", "/api/backups?databaseName=orders", { token: owner.token })).body;
  const expected = backupsOfOrders.flatMap((backup: { id: string; createdAt: string; copies: object[] }) =>
    backup.copies.map((copy) => ({ backupId: backup.id, backupCreatedAt: backup.createdAt, ...copy })),
  );
  expect(expected.length).toBe(4); // the failed backup's two, the checked backup's two
  expect(listed.body.copies).toEqual(expected);
  expect(listed.body.copies[0]).toMatchObject({ status: "stored", checkedAt: expect.any(String), size: 2048 });
  expect(listed.body.copies[1]).toMatchObject({
    status: "changed",
    destination: "s3://second-bucket/?region=eu-west-1",
    lockedUntil: "2027-01-01T00:00:00.000Z",
  });

  const stranger = await server.registerUser();
  const foreign = await server.call("GET", "/api/backups/copies?databaseName=orders", { token: stranger.token });
  expect(foreign.status).toBe(404);
  expect(foreign.body.message).toBe("Database not found.");
  const missing = await server.call("GET", "/api/backups/copies", { token: owner.token });
  expect(missing.status).toBe(400);
  expect(missing.body.message).toBeTruthy();
  expect((await server.call("GET", `/api/backups/copies?databaseName=${"x".repeat(65)}`, { token: owner.token })).status).toBe(400);
  expect((await server.call("GET", "/api/backups/copies?databaseName=orders")).status).toBe(401);
});

test("a bucket the daily check cannot reach: quiet on the first failed check, alerted once when still unreachable a day later, again only in a new episode", async () => {
  const hook = await server.call("POST", "/api/settings/webhooks", {
    token: owner.token,
    body: { url: `${receiver.url}/unreachable`, events: ["copy.unreachable"] },
  });
  expect(hook.status).toBe(201);
  const backupId = await completedBackup(1024);
  const gone = "s3://gone-bucket/dbvault/?region=eu-west-1";
  agent.send({ type: "backup.copied", backupId, destination: gone, key: "dbvault/orders/u.enc.dbvault", status: "stored", size: 1024, sha256 });
  const report = (outcome: string) =>
    fetch(`${server.listen()}${agentApi.copyChecks}`, {
      method: "POST",
      headers: { ...agent.headers(), "content-type": "application/json" },
      body: JSON.stringify({
        results: [{ backupId, destination: gone, outcome, readBack: false, ...(outcome === "unreachable" ? { detail: "NoSuchBucket" } : {}) }],
      }),
    }).then((answer) => answer.json());
  await waitUntil(async () => ((await server.call("GET", `/api/backups/${backupId}`, { token: owner.token })).body.copies.length === 1 ? true : undefined), {
    message: "the copy to be recorded",
  });
  const alerted = () => receiver.received.filter((delivery) => delivery.event === "copy.unreachable");
  const mails = () => server.sentMail.filter((mail) => mail.subject === 'Backup copies unreachable: "orders"');

  // A first failed check can be a passing outage: recorded, not raised.
  advanceServerClock(server, 25 * 3600_000);
  expect(await report("unreachable")).toEqual({ recorded: 1, alerts: 0 });
  // Still unreachable at the next day's check: raised once, by mail and webhook.
  advanceServerClock(server, 25 * 3600_000);
  expect(await report("unreachable")).toEqual({ recorded: 1, alerts: 1 });
  const event = await waitUntil(() => alerted()[0], { message: "the copy.unreachable webhook" });
  expect(event.body.copies).toEqual([
    { backupId, databaseName: "orders", destination: gone, key: "dbvault/orders/u.enc.dbvault", detail: expect.stringContaining("NoSuchBucket") },
  ]);
  const mail = await waitUntil(() => mails()[0], { message: "the unreachable-bucket mail" });
  expect(mail.to).toBe(owner.email);
  expect(mail.text).toContain("s3://gone-bucket/dbvault/");
  // The days after: recorded, not raised again.
  for (let day = 0; day < 2; day++) {
    advanceServerClock(server, 25 * 3600_000);
    expect(await report("unreachable")).toEqual({ recorded: 1, alerts: 0 });
  }
  // It answers again: the episode ends; a new outage is raised again once it lasts a day.
  expect(await report("present")).toEqual({ recorded: 1, alerts: 0 });
  advanceServerClock(server, 25 * 3600_000);
  expect(await report("unreachable")).toEqual({ recorded: 1, alerts: 0 });
  advanceServerClock(server, 25 * 3600_000);
  expect(await report("unreachable")).toEqual({ recorded: 1, alerts: 1 });
  await waitUntil(() => (alerted().length === 2 ? true : undefined), { message: "the second episode's webhook" });
  await waitUntil(() => (mails().length === 2 ? true : undefined), { message: "the second episode's mail" });
});
