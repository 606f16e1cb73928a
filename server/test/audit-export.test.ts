// The audit log's export (issue 44): GET /api/audit/export as CSV or JSON, the list's filter
// applied, CSV quoted per RFC 4180 (commas, quotes, line breaks) and safe to open in a
// spreadsheet; any member of the organization may export, no one else.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { recordAudit } from "../src/modules/audit/service";
import { csvField } from "../src/modules/audit/export";
import { startTestServer, type TestServer, type TestUser } from "./harness";
import { createTeam } from "./teams";

let server: TestServer;
let owner: TestUser;
let viewer: TestUser;
let stranger: TestUser;
let teamId: string;
const tricky = 'Ann "The DBA" O\'Neil, ops';

beforeAll(async () => {
  server = await startTestServer();
  owner = await server.registerUser({ name: "Owner" });
  viewer = await server.registerUser({ name: "Viewer" });
  stranger = await server.registerUser({ name: "Stranger" });
  teamId = (
    await createTeam(server, "Audit team", [
      { user: owner, role: "owner" },
      { user: viewer, role: "viewer" },
    ])
  ).id;
  const actor = { id: owner.id, name: tricky, email: owner.email, role: "owner" as const };
  await recordAudit(server.ctx.db, teamId, "SETTINGS_UPDATED", { note: "line one\nline two, with a comma" }, actor);
  await recordAudit(server.ctx.db, teamId, "BACKUP_CREATED", { databaseName: '=HYPERLINK("http://evil")', type: "manual" }, actor);
  await recordAudit(server.ctx.db, teamId, "BACKUP_FAILED", { databaseName: "shop" });
  await recordAudit(server.ctx.db, stranger.id, "BACKUP_CREATED", { databaseName: "strangers-secret-db" });
}, 60_000);
afterAll(() => server?.close());

const exportAs = (user: TestUser, query: string, organizationId = teamId) =>
  server.call("GET", `/api/audit/export${query}`, { token: user.token, headers: { "x-organization-id": organizationId } });

/** A minimal RFC 4180 reader, to check the file parses back to the values written. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (quoted) {
      field += c;
    } else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      i++;
    } else {
      field += c;
    }
  }
  return rows;
}

test("CSV: a header, one row per entry newest first, commas, quotes and line breaks quoted", async () => {
  const res = await exportAs(viewer, "?format=csv");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toStartWith("text/csv");
  expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="audit-log-\d{4}-\d{2}-\d{2}\.csv"$/);
  const text = res.body as string;
  expect(text).toContain(`"Ann ""The DBA"" O'Neil, ops"`);
  const rows = parseCsv(text);
  expect(rows[0]).toEqual(["id", "timestamp", "action", "actor_name", "actor_email", "actor_role", "details"]);
  expect(rows.slice(1).map((r) => r[2])).toEqual(["BACKUP_FAILED", "BACKUP_CREATED", "SETTINGS_UPDATED"]);
  const settings = rows[3]!;
  expect(settings[3]).toBe(tricky);
  expect(settings[5]).toBe("owner");
  expect(JSON.parse(settings[6]!)).toEqual({ note: "line one\nline two, with a comma" });
  expect(rows[1]!.slice(3, 6)).toEqual(["", "", ""]); // the server's own entry: no actor
  expect(text).not.toContain("strangers-secret-db");
});

test("a field a spreadsheet would run as a formula is written as text", () => {
  expect(csvField("=SUM(A1)")).toBe("'=SUM(A1)");
  expect(csvField("-1+1")).toBe("'-1+1");
  expect(csvField("@cmd")).toBe("'@cmd");
  expect(csvField("plain")).toBe("plain");
  expect(csvField('a"b')).toBe('"a""b"');
});

test("JSON: the list's entries; the action filter applies to both formats", async () => {
  const json = await exportAs(owner, "?format=json&action=BACKUP_CREATED");
  expect(json.status).toBe(200);
  expect(json.headers.get("content-type")).toStartWith("application/json");
  expect(json.headers.get("content-disposition")).toContain("audit-log-backup_created-");
  expect(json.body.length).toBe(1);
  expect(json.body[0]).toMatchObject({
    action: "BACKUP_CREATED",
    details: { databaseName: '=HYPERLINK("http://evil")' },
    actor: { name: tricky, role: "owner" },
  });
  const listed = await server.call("GET", "/api/user/audit-logs?action=BACKUP_CREATED", { token: owner.token, headers: { "x-organization-id": teamId } });
  expect(json.body).toEqual(listed.body.logs);
  const csv = parseCsv((await exportAs(owner, "?action=BACKUP_FAILED")).body as string);
  expect(csv.length).toBe(2);
  expect(csv[1]![2]).toBe("BACKUP_FAILED");
});

test("bad values answer 400 with a message; no one outside the organization can export its log", async () => {
  const badFormat = await exportAs(owner, "?format=xml");
  expect(badFormat.status).toBe(400);
  expect(badFormat.body.message).toMatch(/format must be csv or json/);
  const badAction = await exportAs(owner, "?action=DROP_TABLE");
  expect(badAction.status).toBe(400);
  expect(badAction.body.message).toMatch(/action must be/);
  expect((await server.call("GET", "/api/audit/export")).status).toBe(401);
  const foreign = await exportAs(stranger, "?format=json", teamId);
  expect(foreign.status).toBeGreaterThanOrEqual(403);
  expect(JSON.stringify(foreign.body)).not.toContain("DBA");
  // The stranger's own export holds only their own organization's entries.
  const own = await exportAs(stranger, "?format=json", stranger.id);
  expect(own.body.map((e: { details: { databaseName?: string } }) => e.details.databaseName)).toEqual(["strangers-secret-db"]);
});
