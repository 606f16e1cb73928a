// Native mode end to end with the real mongodump and mongorestore (100.18.0) on PATH and
// tools.mode "native" (so nothing falls back to the built-in engine), on every target (testkit/mongo-targets.ts): `dbvault-agent dump` and
// `restore` report exactly the collections' counts, and the daemon (`run`, the compiled agent)
// backs up and restores through a DBVault server with those counts recorded, the restored copy
// identical to the source.
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { chmod, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { startTestServer, type TestServer, type TestUser } from "../../server/test/harness.ts";
import { encodeMasterKey, generateMasterKey } from "../src/archive/index.ts";
import { findMongoTools } from "../../testkit/mongo-tools.ts";
import { listMongoTargets, type MongoTargetSpec, testOnTarget } from "../../testkit/mongo-targets.ts";
import { waitUntil } from "../../testkit/wait-until.ts";
import { type AwkwardContent, useAwkwardTarget } from "./support/awkward-database.ts";
import { snapshotDatabase } from "./support/database-snapshot.ts";
import { ensureFreshBinary, type RunningAgent, runSetup, startAgentProcess } from "./support/end-to-end.ts";
import { runAgent } from "./support/run-agent.ts";
import type { AgentTestEnv } from "./support/test-env.ts";

const { tools, missing } = findMongoTools();
const PATH_WITH_TOOLS = tools ? `${dirname(tools.mongodump)}:${process.env.PATH}` : "";

function withTools(target: MongoTargetSpec): MongoTargetSpec {
  return missing === null ? target : { ...target, unavailable: target.unavailable ?? missing };
}

for (const target of listMongoTargets().map(withTools)) {
  describe(`on ${target.name}, native mode with the real tools on PATH`, () => {
    const awkward = useAwkwardTarget(target, { largeDocuments: false, secondaryIndexes: !target.lacks["mongorestore-indexes"] });
    let env: AgentTestEnv;
    let source: string;
    let content: AwkwardContent;
    let total: number;
    let dir: string;
    beforeAll(async () => {
      if (target.unavailable !== null) return;
      ({ env, source, content, total } = awkward);
      dir = await env.makeTempDir();
      await ensureFreshBinary();
    });

    const countsIn = (database: string) => Object.fromEntries(Object.entries(content.counts).map(([name, count]) => [`${database}.${name}`, count]));

    testOnTarget(target, [], "dbvault-agent dump and restore run mongodump and mongorestore and report their counts exactly", async () => {
      const masterKey = generateMasterKey();
      const config = join(dir, "cli.json");
      await writeFile(
        config,
        JSON.stringify({
          version: 1,
          masterKey: encodeMasterKey(masterKey),
          databases: [{ name: "shop", uri: env.uriFor(source) }],
          tools: { mode: "native" },
        }),
      );
      await chmod(config, 0o600);
      const file = join(dir, "shop.enc.dbvault");
      const run = (args: string[]) => runAgent([...args, "--config", config, "--quiet"], { env: { PATH: PATH_WITH_TOOLS, XDG_CONFIG_HOME: dir } });
      const dumped = await run(["dump", "--db", "shop", "--out", file]);
      expect(dumped.stderr).toContain(
        `dumped ${total.toLocaleString("en-US")} documents from ${content.collections.length} collections of shop with mongodump into ${file}`,
      );
      expect(dumped.exitCode).toBe(0);

      const copy = env.uniqueDatabase("native_cli_copy");
      const restored = await run(["restore", "--db", "shop", "--in", file, "--to-db", copy, "--json"]);
      expect(restored.stderr).toContain(
        `restored ${total.toLocaleString("en-US")} documents into ${content.collections.length} collections of ${copy} with mongorestore from ${file}`,
      );
      expect(restored.exitCode).toBe(0);
      const reported = JSON.parse(restored.stdout);
      expect(reported).toEqual({
        restored: total,
        failed: 0,
        collections: Object.fromEntries(Object.entries(countsIn(copy)).map(([ns, n]) => [ns, { restored: n, failed: 0 }])),
      });
      expect(await snapshotDatabase(env.client.db(copy))).toEqual(await snapshotDatabase(env.client.db(source)));
    });

    describe("the daemon", () => {
      let server: TestServer;
      let base: string;
      let user: TestUser;
      let agent: RunningAgent;
      const api = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(`${base}${path}`, {
          method,
          headers: { authorization: `Bearer ${user.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: response.status, body: (await response.json()) as any };
      };

      beforeAll(async () => {
        if (target.unavailable !== null) return;
        server = await startTestServer();
        base = server.listen();
        user = await server.registerUser();
      });
      afterAll(async () => {
        if (agent) await agent.stop("SIGKILL");
        await server?.close();
      });

      testOnTarget(
        target,
        [],
        "backs up and restores through the server with mongodump and mongorestore, counts recorded exactly",
        async () => {
          const setupDir = await env.makeTempDir();
          const setup = await runSetup({ baseUrl: base, apiKey: user.apiKey, databases: [{ name: "shop", uri: env.uriFor(source) }], directory: setupDir });
          expect(setup.exitCode).toBe(0);
          const config = JSON.parse(await readFile(setup.configPath, "utf8"));
          await writeFile(setup.configPath, JSON.stringify({ ...config, tools: { mode: "native" } }), { mode: 0o600 });
          agent = startAgentProcess(setup.configPath, undefined, { PATH: PATH_WITH_TOOLS });
          await waitUntil(async () => (await api("GET", "/api/settings/system-status")).body.agents?.[0]?.status === "active", {
            message: "the agent to be online",
            timeout: 30_000,
          });

          const created = await api("POST", "/api/backups", { databaseName: "shop" });
          expect(created.status).toBe(201);
          const backupId = created.body._id ?? created.body.id;
          const backup = await waitUntil(
            async () => {
              const current = (await api("GET", `/api/backups/${backupId}`)).body;
              return current.status === "completed" || current.status === "failed" ? current : undefined;
            },
            { message: "the backup to end", timeout: 60_000 },
          );
          expect(backup).toMatchObject({ status: "completed", collections: countsIn(source) });

          const copy = env.uniqueDatabase("native_daemon_copy");
          const requested = await api("POST", `/api/backups/${backupId}/restore`, { databaseName: copy, targetDatabase: copy });
          expect(requested.status).toBe(201);
          const restore = await waitUntil(
            async () => {
              const [latest] = (await api("GET", "/api/backups/restores/all")).body;
              return latest?.status === "completed" || latest?.status === "failed" ? latest : undefined;
            },
            { message: "the restore to end", timeout: 60_000 },
          );
          expect(restore).toMatchObject({ status: "completed", targetDatabase: copy });
          expect(restore.stats).toEqual(Object.fromEntries(Object.entries(countsIn(copy)).map(([ns, n]) => [ns, { restored: n, failed: 0 }])));
          expect(await snapshotDatabase(env.client.db(copy))).toEqual(await snapshotDatabase(env.client.db(source)));
        },
        120_000,
      );
    });
  });
}
