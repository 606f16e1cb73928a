// The agent socket checks what it is sent as HTTP bodies are checked: a message with NUL or a lone
// surrogate in any text (which PostgreSQL cannot store) or off its schema is ignored with a warning
// naming the field, never tried on the database (where it was an error-level "agent message
// failed"); the socket stays open and the next good message is handled. Over a real WebSocket, on
// PGlite and (scripts/with-test-postgres.sh) PostgreSQL.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Logger } from "../src/lib/logger";
import { waitUntil } from "../../testkit/wait-until";
import { startTestServer, type TestServer, type TestUser } from "./harness";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

let server: TestServer;
let user: TestUser;
let agent: ScriptedAgent;
const logged: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
const recorder: Logger = {
  debug() {},
  info() {},
  warn: (message, fields) => void logged.push({ level: "warn", message, fields }),
  error: (message, fields) => void logged.push({ level: "error", message, fields }),
};

beforeAll(async () => {
  server = await startTestServer();
  const base = server.listen();
  user = await server.registerUser();
  agent = await registerScriptedAgent(base, user.apiKey, ["orders"]);
  await agent.connect();
}, 60_000);
afterAll(async () => {
  await agent?.disconnect();
  await server?.close();
});

test("messages with NUL or lone surrogates in any text are ignored with a warning naming the field; the next good one is handled", async () => {
  const started = await server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "orders" } });
  expect(started.status).toBe(201);
  const { backupId } = await agent.waitFor("backup");
  server.ctx.log = recorder;

  const progress = (collection: string) => ({ current: 1, total: 2, percentage: 50, collection });
  const bad: [message: Record<string, unknown>, problem: string][] = [
    [{ type: "backup.progress", backupId, progress: progress("orders.items\u0000") }, "progress.collection must not contain NUL characters"],
    [
      { type: "backup.progress", backupId, progress: progress("orders.\ud800items") },
      "progress.collection must be valid Unicode text (it has a lone surrogate)",
    ],
    [{ type: "backup.progress", backupId: `${backupId}\u0000`, progress: progress("orders.items") }, "backupId must not contain NUL characters"],
    [{ type: "backup.failed", backupId, error: "mongodump said \u0000" }, "error must not contain NUL characters"],
    [{ type: "backup.failed", backupId, error: "broken \udc00 text" }, "error must be valid Unicode text (it has a lone surrogate)"],
    [{ type: "update.status", status: "failed", message: "nothing \ud800 installed" }, "message must be valid Unicode text (it has a lone surrogate)"],
    [{ type: "update.status", status: "installing", message: "installing", version: "1.2.3\u0000" }, "version must not contain NUL characters"],
    [{ type: "hello", version: "1.0.0", hostname: "db\u0000host", platform: "linux-x64" }, "hostname must not contain NUL characters"],
    [{ type: "command.result", command: "update", ok: false, message: "no \u0000" }, "message must not contain NUL characters"],
    [{ type: "restore.failed", restoreId: "r\ud800", error: "x" }, "restoreId must be valid Unicode text (it has a lone surrogate)"],
    [{ type: "heartbeat", queued: { backupIds: ["a\u0000"], restoreIds: [] } }, "queued.backupIds.0 must not contain NUL characters"],
    [
      { type: "backup.verified", backupId, verification: { status: "failed", namespaces: { "db.c\u0000": 1 }, error: "x" } },
      'the field name "verification.namespaces.db.c\\u0000" must not contain NUL characters',
    ],
  ];
  for (const [message] of bad) agent.send(message);
  // Off the schema: ignored too, naming where.
  agent.send({ type: "backup.failed", backupId });
  agent.send({ type: "no.such.message" });
  // The socket is still open and in order: this one is handled.
  agent.send({ type: "backup.failed", backupId, error: "disk full" });

  const failed = await waitUntil(
    async () => {
      const backup = (await server.call("GET", `/api/backups/${backupId}`, { token: user.token })).body;
      return backup.status === "failed" ? backup : undefined;
    },
    { message: "the good backup.failed to be handled" },
  );
  expect(JSON.stringify(failed)).toContain("disk full");
  expect(JSON.stringify(failed)).not.toContain("mongodump said");

  expect(logged.filter((entry) => entry.level === "error")).toEqual([]);
  const refused = logged.filter((entry) => entry.message === "ignored an agent message with text the database cannot store");
  expect(refused.map((entry) => entry.fields?.problem)).toEqual(bad.map(([, problem]) => problem));
  expect(refused.every((entry) => entry.fields?.agentId === agent.agentId)).toBe(true);
  expect(logged.filter((entry) => entry.message === "ignored a malformed agent message")).toHaveLength(2);

  // Nothing of the refused text reached the agent's record either.
  const agents = (await server.call("GET", "/api/settings/system-status", { token: user.token })).body.agents as { hostname?: string; lastUpdate: unknown }[];
  expect(JSON.stringify(agents)).not.toContain("db\\u0000host");
  expect(JSON.stringify(agents)).not.toContain("nothing");
});
