// The roles report's words for the cases the integration test (agent/test/job-roles) does not
// reach with the test server: access control off, a server that lists no privileges (FerretDB),
// and a string naming no database (the whole server is backed up and restored).
import { expect, test } from "bun:test";
import { describeJobRoles, type JobRolesFacts } from "./job-roles.ts";

const base: JobRolesFacts = { database: "shop", replicaSet: true, readPreference: "primary", reads: { host: "db1:27017", secondary: false } };
const fromPrimary =
  "reads: from the primary db1:27017 (readPreference=primary); add readPreference=secondaryPreferred to the string to back up from a secondary";

test("access control off: nothing to grant", () => {
  expect(describeJobRoles("shop", base)).toEqual(['roles for "shop": not needed, the server has access control off (every job is allowed)', fromPrimary]);
});

test("a server that does not list privileges: not checked", () => {
  expect(describeJobRoles("shop", { ...base, user: { user: "agent", db: "admin" } })).toEqual([
    'roles for "shop": not checked, the server does not list the user\'s privileges (connectionStatus showPrivileges)',
    fromPrimary,
  ]);
});

test("the whole server with backup alone: restores need readWriteAnyDatabase and restore", () => {
  const privileges = [
    { resource: { db: "", collection: "" }, actions: ["collStats", "find", "listCollections", "listIndexes"] },
    { resource: { db: "local", collection: "" }, actions: ["find"] },
  ];
  const facts = { ...base, database: undefined, user: { user: "agent", db: "admin" }, privileges, readPreference: "secondaryPreferred" };
  expect(describeJobRoles("all", facts)).toEqual([
    'roles for "all", user "agent" (admin):',
    "  backups: needs backup, held",
    "  point-in-time shipping: needs backup, held",
    "  restores into every database: needs readWriteAnyDatabase and restore, missing readWriteAnyDatabase and restore",
    'hint: grant what a job lacks in mongosh as an administrator: db.getSiblingDB("admin").grantRolesToUser("agent", [{ role: "readWriteAnyDatabase", db: "admin" }, { role: "restore", db: "admin" }])',
    "reads: from the primary db1:27017: readPreference=secondaryPreferred found no secondary",
  ]);
});
