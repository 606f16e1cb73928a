// Users and roles as mongod stores them, and the command mongorestore brings them back with:
// what a whole-server dump reads from admin.system.users/roles/version and a restore writes
// through _mergeAuthzCollections. Users are created in a database of the test's own, so this can
// run against a real server too.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Db, Document } from "mongodb";
import { type TestConnection, createDatabaseName, openTestConnection } from "./test-support";

let connection: TestConnection;
let admin: Db;
let db: string;
beforeAll(async () => {
  connection = await openTestConnection();
  admin = connection.client.db("admin");
  db = createDatabaseName("users");
});
afterAll(async () => {
  await connection.client
    .db(db)
    .command({ dropAllUsersFromDatabase: 1 })
    .catch(() => undefined);
  for (const role of ["reader"])
    await connection.client
      .db(db)
      .command({ dropRole: role })
      .catch(() => undefined);
  await connection.close();
});

const usersOf = async (database: string) => (await admin.collection("system.users").find({ db: database }).sort({ _id: 1 }).toArray()) as Document[];

test("createUser and createRole store mongod's documents (credentials, never the password) and the auth schema", async () => {
  await connection.client.db(db).command({ createUser: "alice", pwd: "correct horse", roles: [{ role: "read", db }] });
  await connection.client.db(db).command({ createRole: "reader", privileges: [], roles: [{ role: "read", db }] });
  const [alice] = await usersOf(db);
  expect(alice).toMatchObject({ _id: `${db}.alice`, user: "alice", db, roles: [{ role: "read", db }] });
  expect(Object.keys(alice!.credentials)).toContain("SCRAM-SHA-256");
  expect(JSON.stringify(alice)).not.toContain("correct horse");
  expect(await admin.collection("system.roles").findOne({ _id: `${db}.reader` } as never)).toMatchObject({ role: "reader", db });
  expect(await admin.collection("system.version").findOne({ _id: "authSchema" } as never)).toMatchObject({ currentVersion: 5 });
  expect((await admin.command({ getParameter: 1, authSchemaVersion: 1 })).authSchemaVersion).toBe(5);
  const info = await connection.client.db(db).command({ usersInfo: "alice" });
  expect(info.users.map((user: Document) => user.user)).toEqual(["alice"]);
});

test("_mergeAuthzCollections with drop replaces a database's users by those of a temporary collection", async () => {
  const [alice] = await usersOf(db);
  await connection.client.db(db).command({ createUser: "bob", pwd: "pw", roles: [] });
  await connection.client.db(db).command({ dropUser: "alice" });
  const temporary = `tempusers_${db}`;
  await admin.collection(temporary).insertOne(alice!);
  await admin.command({ _mergeAuthzCollections: 1, tempUsersCollection: `admin.${temporary}`, drop: true, db });
  await admin.collection(temporary).drop();
  expect((await usersOf(db)).map((user) => user.user)).toEqual(["alice"]);
  expect((await usersOf(db))[0]!.credentials).toEqual(alice!.credentials);
});
