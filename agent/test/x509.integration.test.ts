// x509 client-certificate authentication (authMechanism=MONGODB-X509, tlsCertificateKeyFile, with
// and without tlsCertificateKeyFilePassword) through the compiled agent, with both engines. The
// project's MongoDB test server checks the client certificate against a private CA in the TLS
// handshake and takes the user from the certificate's subject, as mongod does with
// net.tls.CAFile; the certificates are made by testkit/test-certificates.ts with openssl.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MongoClient } from "mongodb";
import { encodeMasterKey, generateMasterKey } from "../src/archive/index.ts";
import { type MongoTestServer, startMongoTestServer } from "../../testkit/mongo-server/index.ts";
import { findMongoTools } from "../../testkit/mongo-tools.ts";
import { CLIENT_SUBJECT, createTestCertificates, opensslMissing, type TestCertificates } from "../../testkit/test-certificates.ts";
import { snapshotDatabase } from "./support/database-snapshot.ts";
import { BINARY_PATH, ensureAgentBinary, runAgent } from "./support/run-agent.ts";

const { tools, missing: toolsMissing } = findMongoTools();
if (opensslMissing) console.warn(`x509: skipped (${opensslMissing})`);
if (toolsMissing) console.warn(`x509 with the native engine: skipped (${toolsMissing})`);

let work: string;
let certificates: TestCertificates;
let server: MongoTestServer;
let client: MongoClient;

function x509Uri(file: string, password?: string): string {
  const passwordOption = password === undefined ? "" : `&tlsCertificateKeyFilePassword=${encodeURIComponent(password)}`;
  return `mongodb://127.0.0.1:${server.port}/shop?tls=true&tlsCAFile=${encodeURIComponent(certificates.caFile)}&authMechanism=MONGODB-X509&tlsCertificateKeyFile=${encodeURIComponent(file)}${passwordOption}`;
}

function writeConfig(name: string, uri: string, mode: "builtin" | "native"): string {
  const path = join(work, `${name}.json`);
  const toolsConfig = mode === "builtin" ? { mode } : { mode, mongodump: tools!.mongodump, mongorestore: tools!.mongorestore };
  writeFileSync(path, JSON.stringify({ version: 1, masterKey: encodeMasterKey(generateMasterKey()), databases: [{ name: "shop", uri }], tools: toolsConfig }), {
    mode: 0o600,
  });
  return path;
}

const agent = (args: string[], env: Record<string, string> = {}) => runAgent(args, { command: [BINARY_PATH], env: { HOME: join(work, "home"), ...env } });

describe.skipIf(opensslMissing !== null)("x509 client certificates", () => {
  beforeAll(async () => {
    await ensureAgentBinary();
    work = mkdtempSync(join(tmpdir(), "dbvault-x509-"));
    certificates = createTestCertificates(join(work, "certs"));
    server = await startMongoTestServer({
      tls: { key: certificates.serverKey, cert: certificates.serverCert, ca: certificates.ca },
      users: [{ username: CLIENT_SUBJECT, password: "", database: "$external" }],
    });
    client = await new MongoClient(x509Uri(certificates.clientFile)).connect();
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await server?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test("the test server takes the user from the certificate's subject", async () => {
    const status = await client.db("admin").command({ connectionStatus: 1 });
    expect(status.authInfo.authenticatedUsers).toEqual([{ user: CLIENT_SUBJECT, db: "$external" }]);
  });

  for (const mode of ["builtin", "native"] as const) {
    for (const encrypted of [false, true]) {
      const label = `${mode}: dump, verify and restore with a client certificate${encrypted ? " whose key has a password" : ""}`;
      test.skipIf(mode === "native" && toolsMissing !== null)(
        label,
        async () => {
          const db = client.db("shop");
          await db.dropDatabase();
          await db.collection("orders").insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: i, total: i })) as never[]);
          const before = await snapshotDatabase(db);
          const uri = encrypted ? x509Uri(certificates.encryptedClientFile, certificates.clientPassword) : x509Uri(certificates.clientFile);
          const config = writeConfig(`${mode}-${encrypted}`, uri, mode);
          const backup = join(work, `shop-${mode}-${encrypted}.enc.dbvault`);

          const dumped = await agent(["dump", "--db", "shop", "--out", backup, "--config", config]);
          expect(dumped.stderr).toContain(mode === "native" ? "mongodump" : "built-in");
          expect(dumped.exitCode).toBe(0);
          expect((await agent(["verify", "--in", backup, "--config", config])).exitCode).toBe(0);
          await db.dropDatabase();
          const restored = await agent(["restore", "--db", "shop", "--in", backup, "--config", config, "--quiet"]);
          expect(restored.exitCode).toBe(0);
          expect(await snapshotDatabase(db)).toEqual(before);
          for (const run of [dumped, restored]) expect(run.stderr).not.toContain(certificates.clientPassword);
        },
        120_000,
      );
    }
  }

  test("db add: a key its password does not open, and a subject that is no user, are named", async () => {
    const config = writeConfig("wrong-password", x509Uri(certificates.clientFile), "builtin");
    const wrong = await agent(["db", "add", "--db", "other", "--config", config], {
      DBVAULT_DB_URI: x509Uri(certificates.encryptedClientFile, "wrong-pass-9"),
    });
    expect(wrong.stderr).toBe(
      `dbvault-agent: cannot use the database "other": the private key in ${certificates.encryptedClientFile} (tlsCertificateKeyFile) could not be read: a wrong or missing tlsCertificateKeyFilePassword, or not a PEM key\n` +
        "dbvault-agent: hint: give the key's password as tlsCertificateKeyFilePassword (percent-encoded) in the connection string; nothing was saved\n",
    );
    expect(wrong.stderr).not.toContain("wrong-pass-9");
    expect(wrong.stderr).not.toContain(certificates.clientPassword);
    expect(wrong.exitCode).toBe(1);

    const other = await startMongoTestServer({
      tls: { key: certificates.serverKey, cert: certificates.serverCert, ca: certificates.ca },
      users: [{ username: "CN=someone-else", password: "", database: "$external" }],
    });
    try {
      const uri = x509Uri(certificates.clientFile).replace(`:${server.port}/`, `:${other.port}/`);
      const unknown = await agent(["db", "add", "--db", "other", "--config", config], { DBVAULT_DB_URI: uri });
      expect(unknown.stderr).toBe(
        `dbvault-agent: cannot use the database "other": 127.0.0.1:${other.port} accepted the client certificate ${certificates.clientFile} but has no user named by its subject (authentication failed)\n` +
          "dbvault-agent: hint: create the user in the $external database under the certificate's subject, in RFC 2253 form; check the file with: openssl x509 -noout -subject -issuer -nameopt RFC2253 -in FILE; nothing was saved\n",
      );
    } finally {
      await other.stop();
    }
  }, 60_000);

  test.skipIf(toolsMissing !== null)(
    "native: mongodump's error quoting the string with a refused certificate shows no key password",
    async () => {
      const uri = `${x509Uri(certificates.strangerFile, "stranger-pw-1")}&serverSelectionTimeoutMS=1500`;
      const config = writeConfig("native-refused", uri, "native");
      const run = await agent(["dump", "--db", "shop", "--out", join(work, "refused.enc.dbvault"), "--config", config]);
      expect(run.exitCode).toBe(1);
      expect(run.stderr).toContain("mongodump exited with code 1");
      expect(run.stderr).toContain("tlsCertificateKeyFilePassword=***");
      expect(run.stderr).not.toContain("stranger-pw-1");
    },
    60_000,
  );

  test("db add: a certificate the server refuses is named, never its key", async () => {
    const config = writeConfig("stranger", x509Uri(certificates.clientFile), "builtin");
    const run = await agent(["db", "add", "--db", "other", "--config", config], { DBVAULT_DB_URI: x509Uri(certificates.strangerFile, "never-shown") });
    expect(run.stderr).toBe(
      `dbvault-agent: cannot use the database "other": 127.0.0.1:${server.port} refused the client certificate ${certificates.strangerFile} (tlsCertificateKeyFile)\n` +
        "dbvault-agent: hint: the server accepts certificates signed by its own certificate authority (net.tls.CAFile), whose subject is a user in $external; check the file with: openssl x509 -noout -subject -issuer -nameopt RFC2253 -in FILE; nothing was saved\n",
    );
    expect(run.exitCode).toBe(1);
    expect(run.stderr).not.toContain("PRIVATE KEY");
    expect(run.stderr).not.toContain("never-shown");
  }, 60_000);
});
