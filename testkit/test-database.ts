// Metadata databases for tests. With TEST_DATABASE_URL set (CI starts a real Postgres) each call
// creates a fresh database on that server; otherwise each call gets its own embedded PGlite,
// copied from a template cluster made once per machine (initdb takes seconds and ~1 GB; a copy
// opens in well under a second).
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { type Database, openPglite, openPostgres } from "../db/client";

export const testDatabaseUrl = process.env.TEST_DATABASE_URL?.trim() || null;
export const testDatabaseKind = testDatabaseUrl ? "postgres" : "pglite";

const templateDir = join(tmpdir(), "dbvault-test-pglite-template-v1");

async function ensureTemplate() {
  if (existsSync(join(templateDir, "PG_VERSION"))) return;
  const building = mkdtempSync(join(tmpdir(), "dbvault-template-build-"));
  const script = `import { initPgliteCluster } from ${JSON.stringify(join(import.meta.dir, "..", "db", "client.ts"))};
    await initPgliteCluster(${JSON.stringify(join(building, "cluster"))});`;
  const child = Bun.spawn([process.execPath, "-e", script], { stdout: "inherit", stderr: "inherit" });
  if ((await child.exited) !== 0) throw new Error("could not build the PGlite test template");
  try {
    renameSync(join(building, "cluster"), templateDir);
  } catch {
    // Another test process finished first; its template is as good as ours.
  }
  rmSync(building, { recursive: true, force: true });
}

/** A fresh, empty (unmigrated) database; `close()` also throws it away. */
export async function openTestDatabase(): Promise<Database> {
  if (testDatabaseUrl) {
    const name = `dbvault_test_${randomBytes(6).toString("hex")}`;
    const admin = postgres(testDatabaseUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    const url = new URL(testDatabaseUrl);
    url.pathname = `/${name}`;
    const database = openPostgres(url.toString(), { max: 5 });
    return {
      ...database,
      async close() {
        await database.close();
        await admin.unsafe(`drop database if exists ${name} with (force)`);
        await admin.end();
      },
    };
  }
  await ensureTemplate();
  const dir = mkdtempSync(join(tmpdir(), "dbvault-test-pglite-"));
  cpSync(templateDir, join(dir, "cluster"), { recursive: true });
  const database = await openPglite(join(dir, "cluster"));
  return {
    ...database,
    async close() {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
