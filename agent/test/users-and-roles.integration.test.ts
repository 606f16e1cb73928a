// Users and roles in whole-server backups (issue 12, defect 4): a dump of every database holds
// admin.system.users, admin.system.roles and admin.system.version, as mongodump's does; a restore
// of every database brings users and roles back by mongorestore's rules (through
// _mergeAuthzCollections, replacing the server's); the option leaves them out of either, from the
// library, the CLI flag and the config file. On every target that can (testkit/mongo-targets.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmod, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { BSON, type Document, Int32, MongoClient } from "mongodb";
import { encodeMasterKey, generateMasterKey } from "../src/archive/index.ts";
import { createDecryptStream } from "../src/archive/index.ts";
import { DumpError, restoreDatabase, restoreFromEncrypted, type ToolsConfig } from "../src/dump/index.ts";
import { summarizeArchive, writeMongodumpArchive } from "../src/dump/mongodump-archive/index.ts";
import { listMongoTargets, testOnTarget } from "../../testkit/mongo-targets.ts";
import { findMongoTools } from "../../testkit/mongo-tools.ts";
import { CommandError, startMongoTestServer } from "../../testkit/mongo-server/index.ts";
import { backUpToBuffer } from "./support/back-up.ts";
import { runAgent } from "./support/run-agent.ts";
import { type AgentTestEnv, openAgentTestEnv } from "./support/test-env.ts";

const masterKey = generateMasterKey();
const AUTH_NAMESPACES = ["admin.system.roles", "admin.system.users", "admin.system.version"];

const { tools: realTools, missing: toolsMissing } = findMongoTools();

async function backUp(uri: string, usersAndRoles?: boolean, tools: ToolsConfig = { mode: "builtin" }): Promise<Buffer> {
  return (await backUpToBuffer({ uri, masterKey, tools, ...(usersAndRoles === undefined ? {} : { usersAndRoles }) })).file;
}

async function listNamespaces(file: Buffer): Promise<Record<string, number>> {
  const decrypt = createDecryptStream({ masterKey });
  decrypt.end(file);
  const summary = await summarizeArchive(decrypt);
  return Object.fromEntries(summary.namespaces.map((entry) => [entry.namespace, entry.documentCount]));
}

for (const target of listMongoTargets()) {
  describe(`on ${target.name}`, () => {
    let env: AgentTestEnv;
    let db: string;
    let everything: string;
    const users = async () => (await env.client.db("admin").collection("system.users").find({ db }).sort({ _id: 1 }).toArray()) as Document[];

    beforeAll(async () => {
      if (target.unavailable !== null || target.lacks["users-and-roles"]) return;
      env = await openAgentTestEnv(target);
      db = env.uniqueDatabase("with_users");
      everything = env.uriFor("");
      await env.client
        .db(db)
        .collection("data")
        .insertOne({ _id: 1, kept: true } as never);
      await env.client.db(db).command({ createUser: "alice", pwd: "correct horse battery", roles: [{ role: "read", db }] });
      await env.client.db(db).command({ createRole: "auditor", privileges: [], roles: [{ role: "read", db }] });
    });
    afterAll(async () => {
      for (const user of ["alice", "intruder"])
        await env?.client
          .db(db)
          .command({ dropUser: user })
          .catch(() => undefined);
      await env?.client
        .db(db)
        .command({ dropRole: "auditor" })
        .catch(() => undefined);
      await env?.close();
    });

    testOnTarget(target, ["users-and-roles"], "a dump of every database holds admin's users, roles and version; the option leaves them out", async () => {
      const counts = await listNamespaces(await backUp(everything));
      for (const namespace of AUTH_NAMESPACES) expect(counts[namespace]).toBeGreaterThan(0);
      expect(counts[`${db}.data`]).toBe(1);
      const without = await listNamespaces(await backUp(everything, false));
      expect(Object.keys(without).filter((namespace) => namespace.startsWith("admin.system."))).toEqual([]);
      expect(without[`${db}.data`]).toBe(1);
      // A dump of one database never holds them.
      expect(Object.keys(await listNamespaces(await backUp(env.uriFor(db))))).toEqual([`${db}.data`]);
    });

    testOnTarget(
      target,
      ["users-and-roles", "private-server"],
      "a restore of every database brings the users and roles back, replacing the server's",
      async () => {
        const before = await users();
        const file = await backUp(everything);
        await env.client.db(db).command({ dropUser: "alice" });
        await env.client.db(db).command({ dropRole: "auditor" });
        await env.client.db(db).command({ createUser: "intruder", pwd: "x", roles: [] });
        await env.client
          .db(db)
          .collection("data")
          .updateOne({ _id: 1 } as never, { $set: { kept: false } });

        const result = await restoreFromEncrypted({ uri: everything, masterKey, input: [file], tools: { mode: "builtin" } });
        expect(result.usersAndRoles).toEqual({ users: expect.any(Number), roles: expect.any(Number) });
        expect(result.usersAndRoles!.users).toBeGreaterThanOrEqual(1);
        expect(result.skipped).not.toContain("admin.system.users");
        expect(await users()).toEqual(before);
        expect(
          await env.client
            .db("admin")
            .collection("system.roles")
            .countDocuments({ _id: `${db}.auditor` } as never),
        ).toBe(1);
        expect(
          await env.client
            .db(db)
            .collection("data")
            .findOne({ _id: 1 } as never),
        ).toEqual({ _id: 1, kept: true } as never);
        const names = (await env.client.db("admin").listCollections({}, { nameOnly: true }).toArray()).map((entry) => entry.name);
        expect(names.filter((name) => name.includes("dbvault-restore"))).toEqual([]);
      },
    );

    testOnTarget(
      toolsMissing === null ? target : { ...target, unavailable: target.unavailable ?? toolsMissing },
      ["users-and-roles", "private-server"],
      "with the real mongodump and mongorestore (native mode) the users come back the same way",
      async () => {
        const native = { mode: "native", mongodump: realTools!.mongodump, mongorestore: realTools!.mongorestore } as const;
        const before = await users();
        const file = await backUp(everything, undefined, native);
        expect(Object.keys(await listNamespaces(file))).toEqual(expect.arrayContaining(AUTH_NAMESPACES));
        await env.client.db(db).command({ dropUser: "alice" });
        const result = await restoreFromEncrypted({ uri: everything, masterKey, input: [file], tools: native });
        expect(result.engine).toBe("native");
        expect(result.usersAndRoles!.users).toBeGreaterThanOrEqual(1);
        expect(await users()).toEqual(before);
      },
    );

    testOnTarget(target, ["users-and-roles", "private-server"], "with the option, or restoring one database, the server's users stay as they are", async () => {
      const file = await backUp(everything);
      await env.client
        .db(db)
        .command({ createUser: "intruder", pwd: "x", roles: [] })
        .catch(() => undefined);
      const expected = await users();
      const result = await restoreFromEncrypted({ uri: everything, masterKey, input: [file], tools: { mode: "builtin" }, usersAndRoles: false });
      expect(result.usersAndRoles).toBeUndefined();
      expect(result.skipped).toEqual(expect.arrayContaining(["admin.system.users", "admin.system.roles"]));
      expect(await users()).toEqual(expected);
      await restoreFromEncrypted({ uri: env.uriFor(db), masterKey, input: [file], tools: { mode: "builtin" } });
      expect(await users()).toEqual(expected);
    });

    testOnTarget(target, ["users-and-roles"], "the CLI flag and the config entry leave them out of a dump", async () => {
      const dir = await env.makeTempDir();
      const config = (usersAndRoles?: boolean) => ({
        version: 1,
        masterKey: encodeMasterKey(masterKey),
        databases: [{ name: "all", uri: everything, ...(usersAndRoles === undefined ? {} : { usersAndRoles }) }],
      });
      for (const [name, contents, flag] of [
        ["flag", config(), ["--no-users-and-roles"]],
        ["entry", config(false), []],
      ] as const) {
        const path = join(dir, `${name}.json`);
        await writeFile(path, JSON.stringify(contents));
        await chmod(path, 0o600);
        const out = join(dir, `${name}.enc.dbvault`);
        const run = await runAgent(["dump", "--db", "all", "--out", out, "--config", path, "--quiet", ...flag], { env: { XDG_CONFIG_HOME: dir } });
        expect(run.stderr).toContain("dumped");
        expect(run.exitCode).toBe(0);
        const verified = await runAgent(["verify", "--in", out, "--json", "--config", path]);
        expect(Object.keys(JSON.parse(verified.stdout).namespaces).filter((namespace) => namespace.startsWith("admin.system."))).toEqual([]);
      }
    });

    testOnTarget(
      target,
      ["users-and-roles", "private-server"],
      "dbvault-agent restore says it replaced the users and roles, or leaves them with the flag",
      async () => {
        const dir = await env.makeTempDir();
        const path = join(dir, "agent.json");
        await writeFile(path, JSON.stringify({ version: 1, masterKey: encodeMasterKey(masterKey), databases: [{ name: "all", uri: everything }] }));
        await chmod(path, 0o600);
        const file = join(dir, "all.enc.dbvault");
        await writeFile(file, await backUp(everything));
        const counts = await listNamespaces(await readFile(file));
        const restore = (...flags: string[]) =>
          runAgent(["restore", "--db", "all", "--in", file, "--config", path, "--quiet", ...flags], { env: { XDG_CONFIG_HOME: dir } });
        const withUsers = await restore();
        expect(withUsers.exitCode).toBe(0);
        const users = `${counts["admin.system.users"]} user${counts["admin.system.users"] === 1 ? "" : "s"}`;
        const roles = `${counts["admin.system.roles"]} role${counts["admin.system.roles"] === 1 ? "" : "s"}`;
        expect(withUsers.stderr).toContain(` and the server's users and roles (with the backup's ${users} and ${roles}), nothing else changed`);
        const without = await restore("--no-users-and-roles");
        expect(without.exitCode).toBe(0);
        expect(without.stderr).not.toContain("users and roles");
        expect(without.stderr).toContain("skipped admin.system.roles, admin.system.users, admin.system.version");
      },
    );

    testOnTarget(target, ["private-server"], "users a server cannot take fail the restore before anything is replaced", async () => {
      const own = target.lacks["users-and-roles"] ? await openAgentTestEnv(target) : env;
      try {
        const into = own.uniqueDatabase("refused_users");
        await own.client
          .db(into)
          .collection("data")
          .insertOne({ _id: 1, untouched: true } as never);
        // Users of auth schema 1 (before MongoDB 2.6), which no current server takes; a server
        // without _mergeAuthzCollections refuses any.
        const archive = writeMongodumpArchive(
          {
            header: { serverVersion: "2.4.0" },
            collections: [
              { db: into, collection: "data", type: "collection", indexes: [{ v: new Int32(2), key: { _id: new Int32(1) }, name: "_id_" }] },
              { db: "admin", collection: "system.users", type: "collection", indexes: [] },
            ],
          },
          [
            { kind: "document", namespace: `${into}.data`, bytes: BSON.serialize({ _id: 1, untouched: false }) },
            { kind: "document", namespace: "admin.system.users", bytes: BSON.serialize({ _id: "old.user", user: "user", db: "old", pwd: "0123" }) },
          ],
        );
        const error = await restoreDatabase({ uri: own.uriFor(""), input: archive, tools: { mode: "builtin" } }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(DumpError);
        expect((error as DumpError).code).toBe("unsupported");
        expect((error as DumpError).hint).toContain("--no-users-and-roles");
        expect(await own.client.db(into).collection("data").find().toArray()).toEqual([{ _id: 1, untouched: true }] as never);
        const names = async (database: string) => (await own.client.db(database).listCollections({}, { nameOnly: true }).toArray()).map((entry) => entry.name);
        expect([...(await names(into)), ...(await names("admin"))].filter((name) => name.includes("dbvault-restore"))).toEqual([]);
      } finally {
        if (own !== env) await own.close();
      }
    });
  });
}

test("a user without the right to restore users fails such a restore before anything is replaced", async () => {
  const server = await startMongoTestServer();
  try {
    const client = await new MongoClient(server.uri).connect();
    await client
      .db("shop")
      .collection("data")
      .insertOne({ _id: 1, v: "old" } as never);
    await client.db("shop").command({ createUser: "alice", pwd: "pw", roles: [] });
    const file = await backUp(server.uri);
    await client
      .db("shop")
      .collection("data")
      .updateOne({ _id: 1 } as never, { $set: { v: "new" } });
    server.intercept(({ name }) => {
      if (name === "_mergeAuthzCollections") throw new CommandError(13, "not authorized on admin to execute command { _mergeAuthzCollections: 1 }");
    });
    const error = await restoreFromEncrypted({ uri: server.uri, masterKey, input: [file], tools: { mode: "builtin" } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DumpError);
    expect((error as DumpError).message).toBe("the MongoDB user of this connection may not restore users and roles");
    expect((error as DumpError).hint).toContain("restore role");
    expect(
      await client
        .db("shop")
        .collection("data")
        .findOne({ _id: 1 } as never),
    ).toEqual({ _id: 1, v: "new" } as never);
    await client.close();
  } finally {
    await server.stop();
  }
});
