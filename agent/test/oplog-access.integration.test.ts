// `db add` (and `setup`, through the same check) says whether point-in-time recovery is possible
// for the database: on a standalone server never (it keeps no oplog); on a replica set when the
// user can read local.oplog.rs (the backup role) and apply entries (applyOps on the cluster from
// the restore role, and update/remove in the database from readWrite), else naming the missing
// roles with the exact grant. Users of the replica-set test server hold the built-in roles given
// here, which its connectionStatus reports with their privileges as mongod does.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { agentDatabases, databases } from "../../db/schema/index.ts";
import { startTestServer, type TestServer } from "../../server/test/harness.ts";
import type { RoleName, TestUser } from "../../testkit/mongo-server/command-context.ts";
import { startMongoTestServer, type MongoTestServer } from "../../testkit/mongo-server/server.ts";
import { runAgent } from "./support/run-agent.ts";

const admin = (role: string): RoleName => ({ role, db: "admin" });
const READ_WRITE: RoleName = { role: "readWrite", db: "shop" };
const USERS: TestUser[] = [
  { username: "writer", password: "pw", roles: [READ_WRITE] },
  { username: "backer", password: "pw", roles: [admin("backup")] },
  { username: "both", password: "pw", roles: [admin("backup"), admin("restore")] },
  { username: "ready", password: "pw", roles: [admin("backup"), admin("restore"), READ_WRITE] },
  { username: "root", password: "pw", roles: [admin("root")] },
  { username: "anyreader", password: "pw", roles: [admin("readAnyDatabase"), READ_WRITE] },
];

let replicaSet: MongoTestServer;
let standalone: MongoTestServer;
let dir: string;
let server: TestServer;
beforeAll(async () => {
  replicaSet = await startMongoTestServer({ replicaSet: { name: "rs0" }, users: USERS });
  standalone = await startMongoTestServer({ users: USERS });
  dir = await mkdtemp(join(tmpdir(), "dbvault-oplog-access-"));
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
  await replicaSet?.stop();
  await standalone?.stop();
  await rm(dir, { recursive: true, force: true });
});

const uriOf = (mongo: MongoTestServer, user: string) => `mongodb://${user}:pw@127.0.0.1:${mongo.port}/shop?authSource=admin`;

/** The point-in-time lines `db add` prints for `user` at `server`. */
async function pitrLinesOf(server: MongoTestServer, user: string): Promise<string[]> {
  const config = join(dir, `${user}-${server.port}.json`);
  const run = await runAgent(["db", "add", "--db", "shop", "--config", config], {
    env: { DBVAULT_DB_URI: uriOf(server, user) },
  });
  expect(run.exitCode).toBe(0);
  const lines = run.stderr.split("\n");
  const at = lines.findIndex((line) => line.startsWith("dbvault-agent: point-in-time recovery:"));
  expect(at).toBeGreaterThan(-1);
  // The check is one line of db add's output, after the connection, before the entry is saved.
  expect(lines[at - 1]).toStartWith('dbvault-agent: connected to "shop"');
  return lines.slice(at, lines[at + 1]?.startsWith("dbvault-agent: hint:") ? at + 2 : at + 1);
}

// Each user lacking something: the line (what cannot be done, the roles missing) and the grant.
const MISSING: [why: string, user: string, cannot: string, grants: string][] = [
  [
    "only readWrite: neither the oplog can be read nor entries applied",
    "writer",
    "read the oplog or apply oplog entries (missing: backup and restore)",
    "backup restore",
  ],
  [
    "backup alone reads the oplog; applying needs restore (applyOps) and readWrite (update, remove)",
    "backer",
    "apply oplog entries (missing: restore and readWrite on shop)",
    "restore readWrite",
  ],
  [
    "backup and restore: restore grants no update or remove, so readWrite is still named",
    "both",
    "apply oplog entries (missing: readWrite on shop)",
    "readWrite",
  ],
  [
    "readAnyDatabase does not reach the local database: the oplog stays unreadable without backup",
    "anyreader",
    "read the oplog or apply oplog entries (missing: backup and restore)",
    "backup restore",
  ],
];
const GRANTS: Record<string, string> = {
  backup: '{ role: "backup", db: "admin" }',
  restore: '{ role: "restore", db: "admin" }',
  readWrite: '{ role: "readWrite", db: "shop" }',
};

test.each(MISSING)("%s", async (_why, user, cannot, grants) => {
  const roles = grants
    .split(" ")
    .map((role) => GRANTS[role])
    .join(", ");
  expect(await pitrLinesOf(replicaSet, user)).toEqual([
    `dbvault-agent: point-in-time recovery: not possible yet for "shop", the user "${user}" cannot ${cannot}`,
    `dbvault-agent: hint: to turn it on later, grant the roles in mongosh as an administrator: db.getSiblingDB("admin").grantRolesToUser("${user}", [${roles}])`,
  ]);
});

test("backup, restore and readWrite, or root: possible, no hint", async () => {
  const possible = ['dbvault-agent: point-in-time recovery: possible for "shop" (the user can read the oplog and apply its entries)'];
  expect(await pitrLinesOf(replicaSet, "ready")).toEqual(possible);
  expect(await pitrLinesOf(replicaSet, "root")).toEqual(possible);
});

test("a standalone server: not available whatever the roles, with what to do", async () => {
  const standaloneLines = [
    'dbvault-agent: point-in-time recovery: not available for "shop", its server is standalone (it keeps no oplog)',
    "dbvault-agent: hint: point-in-time recovery needs a replica set; a single-member replica set is enough (mongod --replSet, then rs.initiate())",
  ];
  expect(await pitrLinesOf(standalone, "ready")).toEqual(standaloneLines);
  expect(await pitrLinesOf(standalone, "writer")).toEqual(standaloneLines);
});

test("setup and db add report what they found to the server, which records it per agent and database", async () => {
  const base = server.listen();
  const account = await server.registerUser();
  const config = join(dir, "registered.json");
  const databasesFile = join(dir, "databases.txt");
  await writeFile(databasesFile, `ready=${uriOf(replicaSet, "ready")}\nbacker=${uriOf(replicaSet, "backer")}\nsolo=${uriOf(standalone, "ready")}\n`, {
    mode: 0o600,
  });
  const setup = await runAgent(
    ["setup", "--server", `${base}/api`, "--api-key-file", "-", "--databases-file", databasesFile, "--name", "pitr", "--config", config],
    {
      stdin: new TextEncoder().encode(`${account.apiKey}\n`),
    },
  );
  expect(setup.exitCode).toBe(0);
  const added = await runAgent(["db", "add", "--db", "writer", "--config", config], { env: { DBVAULT_DB_URI: uriOf(replicaSet, "writer") } });
  expect(added.exitCode).toBe(0);
  const rows = await server.ctx.db
    .select({ name: databases.name, pitrAccess: agentDatabases.pitrAccess })
    .from(agentDatabases)
    .innerJoin(databases, eq(databases.id, agentDatabases.databaseId))
    .where(eq(databases.organizationId, account.id));
  expect(Object.fromEntries(rows.map((row) => [row.name, row.pitrAccess]))).toEqual({
    ready: { status: "ready", missingRoles: [] },
    backer: { status: "missing-roles", missingRoles: [admin("restore"), READ_WRITE] },
    solo: { status: "standalone", missingRoles: [] },
    writer: { status: "missing-roles", missingRoles: [admin("backup"), admin("restore")] },
  });
});
