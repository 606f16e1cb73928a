// The attack write-only agents answer (issue 27 §4), on the real path: server + compiled agent +
// MongoDB test server over loopback. An agent set up with --key-mode write-only backs up as any
// other; whoever then holds the database host's config and the user's credentials downloads the
// backup and cannot open it (the config holds only a public key); the identity saved at setup,
// kept off the host, opens it.
import { expect, test } from "bun:test";
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { summarizeArchive } from "../src/dump/mongodump-archive/index.ts";
import { setUpUserWithAgent, useEndToEndWorld, waitForBackupEnd } from "./support/end-to-end-world.ts";
import { BINARY_PATH, runAgent } from "./support/run-agent.ts";

const world = useEndToEndWorld();

test("a write-only agent's backup cannot be read with the host's config and a stolen session; its identity opens it", async () => {
  const database = world.env.uniqueDatabase("writeonly");
  await world.env.client
    .db(database)
    .collection("orders")
    .insertOne({ _id: 1, total: 10 } as never);
  const offline = await world.env.makeTempDir();
  const identity = join(offline, "identity.txt");
  const { user, api, configPath, setupStderr, start } = await setUpUserWithAgent(world, database, ["--key-mode", "write-only", "--identity-out", identity]);
  expect(setupStderr).toContain("dbvault-agent: this agent is now write-only: new backups are sealed to the public key");
  expect((await stat(identity)).mode & 0o777).toBe(0o600);
  const config = JSON.parse(await readFile(configPath, "utf8"));
  expect(config.masterKey).toBeUndefined();
  expect(config.recipient).toStartWith("dbvpk1_");
  await start();
  const created = await api("POST", "/api/backups", { databaseName: "main" });
  expect(created.status).toBe(201);
  const backup = await waitForBackupEnd(api, created.body._id, 60_000);
  expect(backup.status).toBe("completed");

  // The attacker: the user's session (or API key) and the database host's config file.
  const response = await fetch(`${world.base}/api/backups/${created.body._id}/download`, { headers: { authorization: `Bearer ${user.token}` } });
  expect(response.status).toBe(200);
  const file = join(offline, "stolen.enc.dbvault");
  await writeFile(file, Buffer.from(await response.arrayBuffer()));
  const binary = { command: [BINARY_PATH] };
  for (const args of [
    ["decrypt", "--in", file, "--out", join(offline, "stolen.archive")],
    ["verify", "--in", file],
  ]) {
    const stolen = await runAgent([...args, "--config", configPath], binary);
    expect(stolen.stderr).toContain(
      `dbvault-agent: this agent is write-only: ${configPath} holds only the public key its backups are sealed to, which cannot open them\n`,
    );
    expect(stolen.exitCode).toBe(4);
  }

  // The owner, with the identity kept offline.
  const archive = join(offline, "opened.archive");
  const opened = await runAgent(["decrypt", "--in", file, "--out", archive, "--identity", identity, "--config", configPath], binary);
  expect(opened.exitCode).toBe(0);
  const summary = await summarizeArchive([await readFile(archive)]);
  expect(summary.namespaces.map((n) => [n.namespace, n.documentCount])).toEqual([[`${database}.orders`, 1]]);

  // A one-off `dump` on the host seals to the same recipient.
  const dumped = join(offline, "dumped.enc.dbvault");
  expect((await runAgent(["dump", "--db", "main", "--out", dumped, "--quiet", "--config", configPath], binary)).exitCode).toBe(0);
  expect((await runAgent(["verify", "--in", dumped, "--config", configPath], binary)).exitCode).toBe(4);
  expect((await runAgent(["verify", "--in", dumped, "--identity", identity, "--config", configPath], binary)).exitCode).toBe(0);
});
