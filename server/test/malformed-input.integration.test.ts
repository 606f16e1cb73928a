// Every operation of the OpenAPI document at /api/docs gets a fixed set of bad values in each of
// its inputs (body fields, the whole body, path and query parameters), signed in and anonymous:
// NUL and lone surrogates, huge strings, wrong types, fractional and huge numbers, invalid ids,
// prototype keys and operator objects. No answer may be a 5xx. Field names and parameters come
// from the document; the other inputs stay valid so each bad value reaches as far as it can.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { kbArticles, users } from "@db/schema";
import { eq } from "drizzle-orm";
import { startTestServer, type TestServer, type TestUser } from "./harness";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

let server: TestServer;
let admin: TestUser;
let victim: TestUser;
let agent: ScriptedAgent;
let ids: { backupId: string; agentId: string; databaseId: string; articleId: string; articleSlug: string };

beforeAll(async () => {
  server = await startTestServer();
  server.listen();
  admin = await server.registerAdmin();
  victim = await server.registerUser();
  agent = await registerScriptedAgent(`http://127.0.0.1:${server.app.server!.port}`, admin.apiKey, ["orders"]);
  await agent.connect();
  const created = await server.call("POST", "/api/backups", { token: admin.token, body: { databaseName: "orders" } });
  expect(created.status).toBe(201);
  const { backupId } = await agent.waitFor("backup");
  expect((await agent.upload(backupId, randomBytes(3000))).status).toBe(200);
  const [database] = (await server.call("GET", "/api/settings/databases", { token: admin.token })).body;
  const [article] = await server.ctx.db.select().from(kbArticles).limit(1);
  ids = { backupId, agentId: agent.agentId, databaseId: database.id ?? database._id, articleId: article!.id, articleSlug: article!.slug };
});
afterAll(async () => {
  await agent?.disconnect();
  await server?.close();
});

type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  anyOf?: Schema[];
  const?: unknown;
  enum?: unknown[];
  pattern?: string;
  minimum?: number;
  minLength?: number;
};

/** A value the schema accepts, so that only the one bad input is bad. */
function validValue(schema: Schema, name: string): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.anyOf) return validValue(schema.anyOf.find((option) => option.type !== "null") ?? schema.anyOf[0]!, name);
  switch (schema.type) {
    case "string":
      if (schema.pattern?.includes("@")) return "someone@example.com";
      if (/sha256/i.test(name)) return "0".repeat(64);
      return "valid-text-1".padEnd(schema.minLength ?? 0, "x");
    case "integer":
    case "number":
      return schema.minimum ?? 1;
    case "boolean":
      return false;
    case "array":
      return [];
    case "object":
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, value]) => [key, validValue(value, key)]));
    default:
      return "valid-text-1";
  }
}

const BAD_FIELD_VALUES: unknown[] = [
  "a\u0000b",
  "\ud800",
  "x".repeat(20_000),
  "",
  12345,
  1.5,
  -1,
  1e308,
  true,
  null,
  [],
  {},
  { $gt: "" },
  "__proto__",
  JSON.parse('{"__proto__": {"role": "admin"}}'),
];

const BAD_WHOLE_BODIES: { contentType: string; text: string }[] = [
  { contentType: "application/json", text: "[]" },
  { contentType: "application/json", text: '"text"' },
  { contentType: "application/json", text: "null" },
  { contentType: "application/json", text: "{" },
  { contentType: "application/json", text: '{"__proto__": {"role": "admin"}, "constructor": {"prototype": {"isAdmin": true}}}' },
  { contentType: "application/json", text: "[".repeat(5_000) + "]".repeat(5_000) },
  { contentType: "application/json", text: '{"n": 1e999999}' },
  { contentType: "text/plain", text: "hello" },
];

// Already percent-encoded where raw bytes could not be sent (a lone surrogate has no UTF-8).
const BAD_URL_VALUES = [
  "%00",
  "%ED%A0%80",
  "%FF",
  "x".repeat(5_000),
  "1.5",
  "-1",
  "1e3",
  "99999999999999999999",
  "..%2F..%2F..%2Fetc%2Fpasswd",
  "000000000000000000000000",
  "__proto__",
  "constructor",
  "%25",
  "%20",
];

function validPathValue(path: string, name: string): string {
  if (name === "backupId") return ids.backupId;
  if (name === "agentId") return ids.agentId;
  if (name === "partNumber") return "0";
  if (name === "slug") return ids.articleSlug;
  if (name === "token") return "a".repeat(43);
  if (name === "file") return "dbvault-agent-linux-x64";
  if (path.startsWith("/api/settings/databases")) return ids.databaseId;
  if (path.startsWith("/api/kb")) return ids.articleId;
  if (path.startsWith("/api/admin/users")) return victim.id;
  if (path.startsWith("/api/backups")) return ids.backupId;
  return "000000000000000000000000";
}

// Left out: it ends the session every later request relies on, and takes no input to get wrong.
// (A new API key needs the password now, which no bad value here is.)
const SKIPPED = new Set(["POST /api/auth/logout"]);

type Case = { label: string; method: string; path: string; query: string; body?: { contentType: string; text: string } };

type Operation = { parameters?: { in: string; name: string }[]; requestBody?: { content: Record<string, { schema: Schema }> } };

function casesFor(method: string, docPath: string, operation: Operation): Case[] {
  const path = docPath.replace(/\{(\w+)\}/g, ":$1");
  const params = (operation.parameters ?? []).filter((p) => p.in === "path").map((p) => p.name);
  const queryFields = (operation.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
  const bodySchema = operation.requestBody?.content["application/json"]?.schema;
  const validBody = bodySchema ? (validValue(bodySchema, "body") as Record<string, unknown>) : undefined;
  const json = (value: unknown) => ({ contentType: "application/json", text: JSON.stringify(value) });
  const build = (paramValues: Record<string, string>, query = "", body = validBody === undefined ? undefined : json(validBody)) => ({
    path: path.replace(/:(\w+)/g, (_, name: string) => paramValues[name] ?? encodeURIComponent(validPathValue(path, name))),
    query,
    body,
  });
  const cases: Case[] = [];
  for (const name of params) {
    for (const bad of BAD_URL_VALUES) cases.push({ label: `param ${name}=${bad.slice(0, 20)}`, method, ...build({ [name]: bad }) });
  }
  for (const name of queryFields) {
    for (const bad of BAD_URL_VALUES) cases.push({ label: `query ${name}=${bad.slice(0, 20)}`, method, ...build({}, `?${name}=${bad}`) });
  }
  if (validBody !== undefined) {
    for (const name of Object.keys(bodySchema?.properties ?? {})) {
      for (const bad of BAD_FIELD_VALUES) {
        cases.push({ label: `body ${name}=${JSON.stringify(bad).slice(0, 20)}`, method, ...build({}, "", json({ ...validBody, [name]: bad })) });
      }
    }
    for (const body of BAD_WHOLE_BODIES) cases.push({ label: `whole body ${body.text.slice(0, 20)}`, method, ...build({}, "", body) });
  }
  return cases;
}

test("every operation × bad values in every input: no answer is a 5xx", async () => {
  const doc = (await server.call("GET", "/api/docs")).body as { paths: Record<string, Record<string, Operation>> };
  const cases: Case[] = [];
  for (const [docPath, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (method === "ws" || SKIPPED.has(`${method.toUpperCase()} ${docPath}`)) continue;
      cases.push(...casesFor(method.toUpperCase(), docPath, operation));
    }
  }

  const agentHeaders = agent.headers();
  const failures: string[] = [];
  const signedInStatuses = new Map<number, number>();
  let sent = 0;
  for (const item of cases) {
    const isAgentRoute = item.path.startsWith("/api/agent/");
    for (const signedIn of [true, false]) {
      const headers: Record<string, string> = {};
      if (signedIn) Object.assign(headers, isAgentRoute ? agentHeaders : { authorization: `Bearer ${admin.token}` });
      if (item.body) headers["content-type"] = item.body.contentType;
      const response = await server.app.handle(
        new Request(`http://localhost${item.path}${item.query}`, { method: item.method, headers, body: item.body?.text }),
      );
      await response.arrayBuffer();
      sent += 1;
      if (signedIn) signedInStatuses.set(response.status, (signedInStatuses.get(response.status) ?? 0) + 1);
      if (response.status >= 500)
        failures.push(`${item.method} ${item.path.slice(0, 80)} ${item.label} (${signedIn ? "signed in" : "anonymous"}) → ${response.status}`);
    }
  }
  const histogram = [...signedInStatuses]
    .sort(([a], [b]) => a - b)
    .map(([status, times]) => `${status}×${times}`)
    .join(" ");
  console.log(`malformed-input: ${sent} requests over ${Object.keys(doc.paths).length} paths, ${failures.length} answered 5xx; signed in: ${histogram}`);
  expect(failures).toEqual([]);
  expect(sent).toBeGreaterThanOrEqual(2_000);
  // The signed-in half really was signed in throughout (a lost session would make it all 401s).
  expect(signedInStatuses.get(401) ?? 0).toBeLessThan(sent / 20);
  expect((signedInStatuses.get(400) ?? 0) + (signedInStatuses.get(404) ?? 0)).toBeGreaterThan(sent / 4);
  // The prototype keys changed nobody's role.
  const [victimRow] = await server.ctx.db.select({ role: users.role }).from(users).where(eq(users.id, victim.id));
  expect(victimRow!.role).toBe("user");
}, 600_000);
