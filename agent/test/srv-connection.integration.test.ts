// `mongodb+srv://` strings, as MongoDB Atlas gives only those, through the compiled agent (Bun's
// resolver, not Node's) with both engines: the built-in one resolves through the driver, the
// native one through mongodump/mongorestore (Go's resolver). A network namespace stands in for
// the agent's machine; its only name server is testkit/dns-responder on its own loopback
// (/etc/netns/NAME/resolv.conf), serving the SRV record `_mongodb._tcp.cluster.test`, a TXT record
// `replicaSet=rs0&authSource=admin`, and the A record of the member. The member is the project's
// MongoDB test server as a replica set, on this side of a veth pair with TEST-NET-2 addresses
// (198.51.100.0/24, never routed anywhere). Its user lives in admin and the string names no
// authSource: only the TXT record makes authentication succeed. As on Atlas, the string turns TLS
// on by being `+srv`: the member's certificate, for node1.cluster.test, comes from a private CA the
// string names with tlsCAFile (testkit/test-certificates.ts). Needs root, `ip` and openssl;
// skipped with the reason otherwise.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { MongoClient } from "mongodb";
import { encodeMasterKey, generateMasterKey } from "../src/archive/index.ts";
import { type MongoTestServer, startMongoTestServer } from "../../testkit/mongo-server/index.ts";
import type { Zone } from "../../testkit/dns-responder/packet.ts";
import { findMongoTools } from "../../testkit/mongo-tools.ts";
import { createTestCertificates, opensslMissing } from "../../testkit/test-certificates.ts";
import { waitUntil } from "../../testkit/wait-until.ts";
import { snapshotDatabase } from "./support/database-snapshot.ts";
import { BINARY_PATH, ensureAgentBinary, REPO_ROOT } from "./support/run-agent.ts";

const ip = Bun.which("ip");
const isRoot = process.getuid?.() === 0;
const skipReason = !isRoot ? "not root" : !ip ? "no ip command" : opensslMissing;
if (skipReason) console.warn(`mongodb+srv: skipped (${skipReason}: a network namespace needs root and ip)`);
const { tools, missing: toolsMissing } = findMongoTools();
if (toolsMissing) console.warn(`mongodb+srv with the native engine: skipped (${toolsMissing})`);

// One /30 of TEST-NET-2 per test process, so parallel runs on this host do not collide.
const subnet = 4 * (process.pid % 63);
const hostAddress = `198.51.100.${subnet + 1}`;
const agentAddress = `198.51.100.${subnet + 2}`;
const namespace = `dbv-srv-${process.pid}`;
const hostSide = `dbvs${process.pid % 100000}`;

let work: string;
let caFile: string;
/** The string as Atlas gives it (no tls option: +srv means TLS), plus the private CA. */
const srvUri = (host: string) => `mongodb+srv://agent:s3cret-pw@${host}/shop?retryWrites=true&w=majority&tlsCAFile=${encodeURIComponent(caFile)}`;
let server: MongoTestServer;
let client: MongoClient;
let responder: ReturnType<typeof Bun.spawn> | undefined;

const run = (args: string[]) => {
  const result = Bun.spawnSync(args, { stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`${args.join(" ")}: ${result.stderr.toString()}`);
};

/** Runs the compiled agent on the agent's "machine" (inside the namespace). */
async function agentInNamespace(args: string[], env: Record<string, string> = {}) {
  const child = Bun.spawn([ip!, "netns", "exec", namespace, BINARY_PATH, ...args], {
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(work, "home"), ...env },
  });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { stdout, stderr, exitCode };
}

function writeZone(port: number): void {
  const zone: Zone = {
    "_mongodb._tcp.cluster.test": [{ type: "SRV", priority: 0, weight: 0, port, target: "node1.cluster.test" }],
    "cluster.test": [{ type: "TXT", text: "replicaSet=rs0&authSource=admin" }],
    "node1.cluster.test": [{ type: "A", address: hostAddress }],
    // A TXT record with an option the driver refuses there (only authSource, replicaSet, loadBalanced).
    "_mongodb._tcp.badtxt.cluster.test": [{ type: "SRV", priority: 0, weight: 0, port, target: "node1.cluster.test" }],
    "badtxt.cluster.test": [{ type: "TXT", text: "readPreference=secondary" }],
    // A name that exists but has no SRV record.
    "nosrv.test": [{ type: "A", address: hostAddress }],
  };
  writeFileSync(join(work, "zone.json"), JSON.stringify(zone));
}

function writeConfig(name: string, mode: "builtin" | "native"): string {
  const path = join(work, `${name}.json`);
  const toolsConfig = mode === "builtin" ? { mode } : { mode, mongodump: tools!.mongodump, mongorestore: tools!.mongorestore };
  const config = {
    version: 1,
    masterKey: encodeMasterKey(generateMasterKey()),
    databases: [{ name: "shop", uri: srvUri("cluster.test") }],
    tools: toolsConfig,
  };
  writeFileSync(path, JSON.stringify(config), { mode: 0o600 });
  return path;
}

describe.skipIf(skipReason !== null)("mongodb+srv:// resolved by the namespace's name server, compiled agent", () => {
  beforeAll(async () => {
    await ensureAgentBinary();
    work = mkdtempSync(join(tmpdir(), "dbvault-srv-"));
    mkdirSync(join(work, "home"));
    run([ip!, "netns", "add", namespace]);
    run([ip!, "link", "add", hostSide, "type", "veth", "peer", "name", "eth0", "netns", namespace]);
    run([ip!, "addr", "add", `${hostAddress}/30`, "dev", hostSide]);
    run([ip!, "link", "set", hostSide, "up"]);
    run([ip!, "-n", namespace, "addr", "add", `${agentAddress}/30`, "dev", "eth0"]);
    run([ip!, "-n", namespace, "link", "set", "eth0", "up"]);
    run([ip!, "-n", namespace, "link", "set", "lo", "up"]);
    // `ip netns exec` bind-mounts this over /etc/resolv.conf for what runs in the namespace.
    mkdirSync(`/etc/netns/${namespace}`, { recursive: true });
    writeFileSync(`/etc/netns/${namespace}/resolv.conf`, "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n");

    const certificates = createTestCertificates(join(work, "certs"), ["node1.cluster.test"]);
    caFile = certificates.caFile;
    server = await startMongoTestServer({
      tls: { key: certificates.serverKey, cert: certificates.serverCert },
      listenAddress: hostAddress,
      advertisedHost: "node1.cluster.test",
      users: [{ username: "agent", password: "s3cret-pw" }],
      replicaSet: { name: "rs0" },
    });
    writeZone(server.port);
    responder = Bun.spawn(
      [ip!, "netns", "exec", namespace, process.execPath, resolve(REPO_ROOT, "testkit/dns-responder/main.ts"), "--zone", join(work, "zone.json")],
      { stdout: "pipe", stderr: "inherit" },
    );
    const reader = (responder.stdout as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toStartWith("listening on 127.0.0.1:53");

    client = await new MongoClient(`mongodb://agent:s3cret-pw@${hostAddress}:${server.port}/?directConnection=true&authSource=admin`, {
      tls: true,
      tlsCAFile: caFile,
      tlsAllowInvalidHostnames: true,
    }).connect();
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await server?.stop();
    responder?.kill();
    await responder?.exited;
    Bun.spawnSync([ip!, "netns", "del", namespace]); // takes its end of the veth pair, and so both
    Bun.spawnSync([ip!, "link", "del", hostSide]);
    rmSync(`/etc/netns/${namespace}`, { recursive: true, force: true });
    if (work) rmSync(work, { recursive: true, force: true });
  }, 30_000);

  for (const mode of ["builtin", "native"] as const) {
    test.skipIf(mode === "native" && toolsMissing !== null)(
      `${mode}: dump, verify and restore through the +srv string`,
      async () => {
        const db = client.db("shop");
        await db.dropDatabase();
        await db.collection("orders").insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: i, total: i * 3, note: `order ${i}` })) as never[]);
        await db.collection("orders").createIndex({ total: 1 }, { name: "total_1" });
        await db.collection("people").insertOne({ _id: "ann", city: "Oslo" } as never);
        const before = await snapshotDatabase(db);
        const config = writeConfig(`agent-${mode}`, mode);
        const backup = join(work, `shop-${mode}.enc.dbvault`);

        const dumped = await agentInNamespace(["dump", "--db", "shop", "--out", backup, "--config", config]);
        expect(dumped.stderr).not.toContain("s3cret-pw");
        expect(dumped.exitCode).toBe(0);
        expect(dumped.stderr).toContain(mode === "native" ? "mongodump" : "built-in");

        const verified = await agentInNamespace(["verify", "--in", backup, "--config", config]);
        expect(verified.exitCode).toBe(0);

        await db.dropDatabase();
        await waitUntil(async () => (await db.listCollections().toArray()).length === 0);
        const restored = await agentInNamespace(["restore", "--db", "shop", "--in", backup, "--config", config, "--quiet"]);
        expect(restored.stderr).not.toContain("s3cret-pw");
        expect(restored.exitCode).toBe(0);
        expect(await snapshotDatabase(db)).toEqual(before);
      },
      120_000,
    );
  }

  test("db add: a name without an SRV record is named, with what to check", async () => {
    const config = writeConfig("nosrv", "builtin");
    const result = await agentInNamespace(["db", "add", "--db", "other", "--config", config], {
      DBVAULT_DB_URI: srvUri("nosrv.test"),
    });
    expect(result.stderr).toBe(
      'dbvault-agent: cannot use the database "other": nosrv.test has no DNS SRV record _mongodb._tcp.nosrv.test (a mongodb+srv:// string needs one)\n' +
        "dbvault-agent: hint: check the host name against the string your provider gives (Atlas: Connect, Drivers); with a plain host name, use mongodb://HOST:27017 instead; nothing was saved\n",
    );
    expect(result.exitCode).toBe(1);
  }, 60_000);

  test("db add: a TXT record with options the driver refuses is named", async () => {
    const config = writeConfig("badtxt", "builtin");
    const result = await agentInNamespace(["db", "add", "--db", "other", "--config", config], {
      DBVAULT_DB_URI: srvUri("badtxt.cluster.test"),
    });
    expect(result.stderr).toBe(
      'dbvault-agent: cannot use the database "other": the DNS TXT record of badtxt.cluster.test sets options a mongodb+srv:// lookup may not set (only authSource, replicaSet and loadBalanced, once)\n' +
        "dbvault-agent: hint: the TXT record is your DNS provider's or database host's to fix; meanwhile, list the hosts yourself in a mongodb://HOST1,HOST2/?replicaSet=NAME string; nothing was saved\n",
    );
    expect(result.exitCode).toBe(1);
  }, 60_000);
});
