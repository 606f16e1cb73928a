// Finding backups (issue 44): GET /api/backups filtered by database, status, date range,
// verified, point-in-time base, paged past the first 100, only ever the caller's organization;
// bad values answer 400 with a message. Rows are inserted directly: the upload path is not what
// this is about, and 230 real uploads would be slow.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { backups } from "@db/schema";
import { startTestServer, type TestServer, type TestUser } from "./harness";
import { createTeam } from "./teams";

let server: TestServer;
let owner: TestUser;
let viewer: TestUser;
let stranger: TestUser;
let teamId: string;
const day = (n: number) => new Date(Date.UTC(2026, 10, 1 + n, 12));
const ok = { status: "ok" as const, namespaces: {} };
const failed = { status: "failed" as const, namespaces: {}, error: "checksum" };

beforeAll(async () => {
  server = await startTestServer();
  owner = await server.registerUser({ name: "Owner" });
  viewer = await server.registerUser({ name: "Viewer" });
  stranger = await server.registerUser({ name: "Stranger" });
  teamId = (
    await createTeam(server, "Shop team", [
      { user: owner, role: "owner" },
      { user: viewer, role: "viewer" },
    ])
  ).id;
  const pit = { consistency: "point-in-time" as const, consistentAtT: 1, consistentAtI: 1, consistentAt: day(0) };
  const rows: (typeof backups.$inferInsert)[] = [
    // 230 plain completed backups of "logs", one an hour from day 0: more than two pages of 100.
    ...Array.from({ length: 230 }, (_, i) => ({
      organizationId: teamId,
      databaseName: "logs",
      status: "completed" as const,
      size: 1,
      createdAt: new Date(day(0).getTime() + i * 3600_000),
    })),
    { organizationId: teamId, databaseName: "shop", status: "completed", size: 1, createdAt: day(20), verifiedAt: day(20), verification: ok, ...pit },
    { organizationId: teamId, databaseName: "shop", status: "completed", size: 1, createdAt: day(21), verifiedAt: day(21), verification: failed, ...pit },
    { organizationId: teamId, databaseName: "shop", status: "completed", size: 1, createdAt: day(22), ...pit },
    { organizationId: teamId, databaseName: "shop", status: "failed", size: 0, createdAt: day(23), error: "agent offline" },
    { organizationId: teamId, databaseName: "shop_archive", status: "completed", size: 1, createdAt: day(24) },
    // Another organization's backup of a database with the same name: never listed.
    { organizationId: stranger.id, databaseName: "shop", status: "completed", size: 1, createdAt: day(22), verifiedAt: day(22), verification: ok, ...pit },
  ];
  await server.ctx.db.insert(backups).values(rows);
}, 60_000);
afterAll(() => server?.close());

const list = (user: TestUser, query: string, organizationId = teamId) =>
  server.call("GET", `/api/backups${query}`, { token: user.token, headers: { "x-organization-id": organizationId } });
const names = (body: { databaseName: string; status: string }[]) => body.map((b) => `${b.databaseName}:${b.status}`);

test("with no new parameter the list is as before: newest first, 100 a page", async () => {
  const res = await list(owner, "");
  expect(res.status).toBe(200);
  expect(res.body.length).toBe(100);
  expect(res.body[0].databaseName).toBe("shop_archive");
  const times = res.body.map((b: { createdAt: string }) => b.createdAt);
  expect([...times].sort().reverse()).toEqual(times);
});

test("paging goes past the first 100 and ends with a short page", async () => {
  const pages = await Promise.all([1, 2, 3].map((page) => list(owner, `?databaseName=logs&page=${page}`)));
  expect(pages.map((p) => p.body.length)).toEqual([100, 100, 30]);
  const ids = new Set(pages.flatMap((p) => p.body.map((b: { id: string }) => b.id)));
  expect(ids.size).toBe(230);
  expect((await list(owner, "?databaseName=logs&page=2&limit=200")).body.length).toBe(30);
});

test("each filter narrows the list, and they combine", async () => {
  expect(names((await list(owner, "?databaseName=shop")).body)).toEqual(["shop:failed", "shop:completed", "shop:completed", "shop:completed"]);
  expect(names((await list(owner, "?search=SHOP")).body)).toEqual([
    "shop_archive:completed",
    "shop:failed",
    "shop:completed",
    "shop:completed",
    "shop:completed",
  ]);
  // % and _ are literal in a search: "p_a" matches "shop_archive" only.
  expect(names((await list(owner, "?search=p_a")).body)).toEqual(["shop_archive:completed"]);
  expect(names((await list(owner, "?search=%25")).body)).toEqual([]);
  expect(names((await list(owner, "?status=failed")).body)).toEqual(["shop:failed"]);
  expect((await list(owner, "?verified=true")).body.map((b: { createdAt: string }) => b.createdAt)).toEqual([day(20).toISOString()]);
  expect((await list(owner, "?verified=false&databaseName=shop")).body.length).toBe(3);
  // A base: completed, point-in-time consistent, verification not failed (day 20 and day 22).
  expect((await list(owner, "?pitrBase=true")).body.map((b: { createdAt: string }) => b.createdAt)).toEqual([day(22).toISOString(), day(20).toISOString()]);
  expect((await list(owner, "?pitrBase=false&databaseName=shop")).body.map((b: { createdAt: string }) => b.createdAt)).toEqual([
    day(23).toISOString(),
    day(21).toISOString(),
  ]);
  // Date range on the creation time; a bare `to` date includes its whole day.
  expect(names((await list(owner, "?from=2026-11-23&to=2026-11-24")).body)).toEqual(["shop:failed", "shop:completed"]);
  expect(names((await list(owner, "?from=2026-11-22T12:00:00Z&to=2026-11-22T12:00:00Z")).body)).toEqual(["shop:completed"]);
  // A time without a zone is UTC; an offset is honoured.
  expect(names((await list(owner, "?from=2026-11-22T12:00:00&to=2026-11-22T12:00:00")).body)).toEqual(["shop:completed"]);
  expect(names((await list(owner, "?from=2026-11-22T13:00:00%2B01:00&to=2026-11-22T13:00:00%2B01:00")).body)).toEqual(["shop:completed"]);
  expect((await list(owner, "?databaseName=logs&from=2026-11-01T12:00:00Z&to=2026-11-01T21:00:00Z")).body.length).toBe(10);
  expect(names((await list(owner, "?databaseName=shop&status=completed&verified=false&pitrBase=true")).body)).toEqual(["shop:completed"]);
});

test("bad values answer 400 with a message naming the parameter, never 500", async () => {
  const cases: [string, RegExp][] = [
    ["?status=done", /status must be one of/],
    ["?verified=yes", /verified must be true or false/],
    ["?pitrBase=1", /pitrBase must be true or false/],
    ["?from=yesterday", /from must be an ISO 8601 date/],
    ["?to=2026-13-45", /to must be an ISO 8601 date/],
    ["?from=2026-02-30", /from must be an ISO 8601 date/],
    ["?to=2026-11-22T25:00", /to must be an ISO 8601 date/],
    ["?from=2026-11-24&to=2026-11-23", /from must not be after to/],
    ["?page=0", /page must be a whole number/],
    ["?limit=501", /limit must be a whole number from 1 to 500/],
    [`?search=${"x".repeat(65)}`, /search must be 1 to 64 characters/],
  ];
  for (const [query, message] of cases) {
    const res = await list(owner, query);
    expect({ query, status: res.status }).toEqual({ query, status: 400 });
    expect(res.body.message).toMatch(message);
  }
});

test("a member of the organization finds its backups; no one else does, whatever the filter", async () => {
  expect((await list(viewer, "?databaseName=shop")).body.length).toBe(4);
  // The stranger sees only their own backup of "shop", and cannot act in the team.
  expect((await list(stranger, "?databaseName=shop", stranger.id)).body.length).toBe(1);
  expect((await list(stranger, "?databaseName=shop", teamId)).status).toBeGreaterThanOrEqual(403);
  const teamBackup = (await list(owner, "?databaseName=shop&verified=true")).body[0];
  expect((await server.call("GET", `/api/backups/${teamBackup.id}`, { token: viewer.token, headers: { "x-organization-id": teamId } })).status).toBe(200);
  const foreign = await server.call("GET", `/api/backups/${teamBackup.id}`, { token: stranger.token });
  expect(foreign.status).toBe(404);
  expect(foreign.body.message).toBe("Backup not found.");
});
