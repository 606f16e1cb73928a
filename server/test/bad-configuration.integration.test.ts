// Start-up with bad environment variables, as an operator meets it: the real server process says
// what is wrong with every bad variable at once, quotes no secret, and touches no database.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnServer } from "../../testkit/server-process";

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
