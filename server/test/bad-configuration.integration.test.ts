// Start-up with bad environment variables, as an operator meets it: the real server process says
// what is wrong with every bad variable at once, quotes no secret, and touches no database.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findPostgresBin, startPostgresServer } from "../../testkit/postgres-server";
import { findFreePort, spawnServer, startServer, stopServer } from "../../testkit/server-process";
import { waitUntil } from "../../testkit/wait-until";

const dataDir = mkdtempSync(join(tmpdir(), "dbvault-bad-config-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const SECRETS = ["Db%ZZSecret", "S3SecretKey123", "Smtp%G0Secret"];

test("every bad URL is listed before anything starts, none is quoted, and nothing but the list is printed", async () => {
  const server = spawnServer({
    DATA_DIR: dataDir,
    // A password with a stray % (a real one would need %25): the driver failed on it with a stack trace.
    DATABASE_URL: `postgres://app:${SECRETS[0]}@127.0.0.1:5432/dbvault`,
    // Found only after the database was opened and migrated, as a stack trace, alone.
    STORAGE_URL: `s3://AKIAEXAMPLE:${SECRETS[1]}@bucket?endpoint=minio.internal:9000`,
    SMTP_URL: `smtp://mailer:${SECRETS[2]}@smtp.example.com:587`,
    PUBLIC_URL: "https://backups.example.com/some path",
  });
  expect(await server.exited).toBe(2);
  const output = server.output();
  expect(output).toContain("dbvault-server: invalid configuration:");
  const listed = output.split("\n").filter((line) => line.startsWith("  - "));
  expect(listed).toEqual([
    expect.stringContaining("PUBLIC_URL must be an http(s) URL"),
    expect.stringContaining("DATABASE_URL has a malformed %-escape in its user name or password"),
    expect.stringContaining("STORAGE_URL: endpoint must be an http:// or https:// URL"),
    expect.stringContaining("SMTP_URL has a malformed %-escape in its user name or password"),
  ]);
  for (const secret of SECRETS) expect(output).not.toContain(secret);
  expect(output).not.toMatch(/\n\s+at /); // no stack trace
  expect(existsSync(join(dataDir, "pglite"))).toBe(false);
}, 60_000);

test("a bad STORAGE_REPLICA_URL stops the start, named as such and without its secret", async () => {
  const server = spawnServer({
    DATA_DIR: dataDir,
    STORAGE_URL: `file://${join(dataDir, "backups")}`,
    STORAGE_REPLICA_URL: "s3://AKIAEXAMPLE:ReplicaSecret99@replica-bucket?endpoint=minio.internal:9000",
  });
  expect(await server.exited).toBe(2);
  const listed = server
    .output()
    .split("\n")
    .filter((line) => line.startsWith("  - "));
  expect(listed).toEqual([expect.stringContaining("STORAGE_REPLICA_URL: endpoint must be an http:// or https:// URL")]);
  expect(server.output()).not.toContain("ReplicaSecret99");

  const same = spawnServer({
    DATA_DIR: dataDir,
    STORAGE_URL: `file://${join(dataDir, "backups")}`,
    STORAGE_REPLICA_URL: `file://${join(dataDir, "backups")}/`,
  });
  expect(await same.exited).toBe(2);
  expect(same.output()).toContain("STORAGE_REPLICA_URL names the same storage as STORAGE_URL");

  const unlockable = spawnServer({
    DATA_DIR: dataDir,
    STORAGE_URL: "s3://locked-bucket?endpoint=http://127.0.0.1:9",
    STORAGE_OBJECT_LOCK: "compliance",
    STORAGE_REPLICA_URL: "file:///var/lib/dbvault/replica",
  });
  expect(await unlockable.exited).toBe(2);
  expect(unlockable.output()).toContain("STORAGE_OBJECT_LOCK: the file (file://) replica backend cannot lock objects");
  expect(existsSync(join(dataDir, "pglite"))).toBe(false);
}, 60_000);

/** Starts the server on `databaseUrl` and answers its output once it exited with status 1. */
async function failedStart(databaseUrl: string): Promise<string> {
  const server = spawnServer({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl });
  expect(await server.exited).toBe(1);
  const output = server.output();
  expect(output).not.toMatch(/\n\s+at /); // no stack trace
  expect(output).toContain("hint: check DATABASE_URL, and that PostgreSQL is running and reachable from this machine.");
  return output;
}

test("a PostgreSQL server that cannot be reached stops the start with one line naming where, and no password", async () => {
  const port = findFreePort(); // nobody listens there
  const output = await failedStart(`postgres://app:Unreachable%2FSecret@127.0.0.1:${port}/dbvault`);
  expect(output).toContain(
    `dbvault-server: cannot use the PostgreSQL server in DATABASE_URL: the database server could not be reached at 127.0.0.1:${port} (ECONNREFUSED).`,
  );
  expect(output).not.toContain("Unreachable");
}, 60_000);

test.skipIf(findPostgresBin() === null)(
  "a wrong password or a missing database is said as such, without quoting the URL",
  async () => {
    const postgres = startPostgresServer();
    try {
      const url = new URL(postgres.url);
      url.password = "Wrong-Secret-123";
      const refused = await failedStart(url.href);
      expect(refused).toContain("cannot use the PostgreSQL server in DATABASE_URL: it refused the user name or password.");
      expect(refused).not.toContain("Wrong-Secret-123");
      const missing = await failedStart(postgres.url.replace(/\/postgres$/, "/no_such_database"));
      expect(missing).toContain("cannot use the PostgreSQL server in DATABASE_URL: the database named in it does not exist.");
      expect(missing).not.toContain(postgres.password);
    } finally {
      postgres.destroy();
    }
  },
  120_000,
);

test("backup storage that cannot be used is named at start-up, without its secret; the server still starts", async () => {
  const port = findFreePort(); // no S3 server listens there
  const server = await startServer({
    DATA_DIR: mkdtempSync(join(tmpdir(), "dbvault-storage-down-")),
    STORAGE_URL: `s3://AKIAEXAMPLE:S3DownSecret123@backups?endpoint=http://127.0.0.1:${port}`,
  });
  try {
    await waitUntil(async () => server.output().includes("backup storage cannot be used now"), { message: "the start-up storage warning" });
    expect(server.output()).not.toContain("S3DownSecret123");
    expect((await fetch(`${server.url}/api/settings/plans`)).status).toBe(200);
  } finally {
    await stopServer(server);
  }
}, 60_000);
