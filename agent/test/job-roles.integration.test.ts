// `db add` (and `setup`, through the same check) names, job by job, the built-in roles the user
// in the connection string needs and which it lacks, with the grant to run, and says which
// member the string's reads reach: a secondary with readPreference=secondary on a two-member set
// of the test server, the primary otherwise. The test server's connectionStatus lists each
// user's privileges from its built-in roles as mongod does.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RoleName, TestUser } from "../../testkit/mongo-server/command-context.ts";
import { startMongoTestServer, type MongoTestServer } from "../../testkit/mongo-server/server.ts";
import { runAgent } from "./support/run-agent.ts";

const admin = (role: string): RoleName => ({ role, db: "admin" });
const USERS: TestUser[] = [
  { username: "ready", password: "pw", roles: [admin("backup"), admin("restore"), { role: "readWrite", db: "shop" }] },
  { username: "writer", password: "pw", roles: [{ role: "readWrite", db: "shop" }] },
  { username: "reader", password: "pw", roles: [{ role: "read", db: "shop" }] },
  { username: "root", password: "pw", roles: [admin("root")] },
];

let primary: MongoTestServer;
let secondary: MongoTestServer;
let standalone: MongoTestServer;
let dir: string;
beforeAll(async () => {
  primary = await startMongoTestServer({ replicaSet: { name: "rs0" }, users: USERS });
  secondary = await startMongoTestServer({
    replicaSet: { name: "rs0" },
    users: USERS,
    secondaryOf: { primary, syncUri: `mongodb://root:pw@${primary.host}/?authSource=admin` },
  });
  standalone = await startMongoTestServer({ users: USERS });
  dir = await mkdtemp(join(tmpdir(), "dbvault-job-roles-"));
});
afterAll(async () => {
  await secondary?.stop();
  await primary?.stop();
  await standalone?.stop();
  await rm(dir, { recursive: true, force: true });
});

let runs = 0;
/** The roles report `db add` prints for the string: from "roles for" to the "reads:" line. */
async function reportOf(uri: string): Promise<string[]> {
  const run = await runAgent(["db", "add", "--db", "shop", "--config", join(dir, `config-${runs++}.json`)], { env: { DBVAULT_DB_URI: uri } });
  expect(run.exitCode).toBe(0);
  const lines = run.stderr.split("\n");
  const from = lines.findIndex((line) => line.startsWith("dbvault-agent: roles for"));
  const to = lines.findIndex((line) => line.startsWith("dbvault-agent: reads:"));
  expect(from).toBeGreaterThan(-1);
  return lines.slice(from, to + 1);
}

const setUri = (user: string, options = "") => `mongodb://${user}:pw@${primary.host}/shop?authSource=admin&replicaSet=rs0${options}`;
const fromPrimary = () =>
  `dbvault-agent: reads: from the primary ${primary.host} (readPreference=primary); add readPreference=secondaryPreferred to the string to back up from a secondary`;

test("backup, restore and readWrite: every job but restores into another database", async () => {
  expect(await reportOf(setUri("ready"))).toEqual([
    'dbvault-agent: roles for "shop", user "ready" (admin):',
    "dbvault-agent:   backups: needs backup, held",
    "dbvault-agent:   point-in-time shipping: needs backup, held",
    "dbvault-agent:   restores into shop: needs readWrite on shop and restore, held",
    "dbvault-agent:   restores into another database: needs readWriteAnyDatabase and restore, missing readWriteAnyDatabase",
    'dbvault-agent: hint: grant what a job lacks in mongosh as an administrator: db.getSiblingDB("admin").grantRolesToUser("ready", [{ role: "readWriteAnyDatabase", db: "admin" }])',
    fromPrimary(),
  ]);
});

test("readWrite alone: backups not consistent, no shipping, no oplog replay; the grant names each role once", async () => {
  expect(await reportOf(setUri("writer"))).toEqual([
    'dbvault-agent: roles for "shop", user "writer" (admin):',
    "dbvault-agent:   backups: needs backup, missing backup (read on shop alone gives backups that are not point-in-time consistent)",
    "dbvault-agent:   point-in-time shipping: needs backup, missing backup",
    "dbvault-agent:   restores into shop: needs readWrite on shop and restore, missing restore",
    "dbvault-agent:   restores into another database: needs readWriteAnyDatabase and restore, missing readWriteAnyDatabase and restore",
    'dbvault-agent: hint: grant what a job lacks in mongosh as an administrator: db.getSiblingDB("admin").grantRolesToUser("writer", [{ role: "backup", db: "admin" }, { role: "restore", db: "admin" }, { role: "readWriteAnyDatabase", db: "admin" }])',
    fromPrimary(),
  ]);
});

test("root: every job; readPreference=secondary reaches the secondary", async () => {
  expect(await reportOf(setUri("root", "&readPreference=secondary"))).toEqual([
    'dbvault-agent: roles for "shop", user "root" (admin):',
    "dbvault-agent:   backups: needs backup, held",
    "dbvault-agent:   point-in-time shipping: needs backup, held",
    "dbvault-agent:   restores into shop: needs readWrite on shop and restore, held",
    "dbvault-agent:   restores into another database: needs readWriteAnyDatabase and restore, held",
    `dbvault-agent: reads: from the secondary ${secondary.host} (readPreference=secondary); restores still write and read the primary`,
  ]);
});

test("a standalone server: read for backups, readWrite for restores, no shipping", async () => {
  expect(await reportOf(`mongodb://reader:pw@${`127.0.0.1:${standalone.port}`}/shop?authSource=admin&readPreference=secondaryPreferred`)).toEqual([
    'dbvault-agent: roles for "shop", user "reader" (admin):',
    "dbvault-agent:   backups: needs read on shop, held",
    "dbvault-agent:   restores into shop: needs readWrite on shop, missing readWrite on shop",
    "dbvault-agent:   restores into another database: needs readWriteAnyDatabase, missing readWriteAnyDatabase",
    'dbvault-agent: hint: grant what a job lacks in mongosh as an administrator: db.getSiblingDB("admin").grantRolesToUser("reader", [{ role: "readWrite", db: "shop" }, { role: "readWriteAnyDatabase", db: "admin" }])',
    `dbvault-agent: reads: from 127.0.0.1:${standalone.port}, a standalone server (no secondary to read from)`,
  ]);
});
