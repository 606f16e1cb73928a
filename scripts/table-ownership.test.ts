// One owner a table (CONTRIBUTING.md): a table is written (`.insert`, `.update`, `.delete` through
// Drizzle) only by the server module that owns it; other modules call its service. Checked in the
// fast lane beside the import rules. Writers that predate the rule are listed in KNOWN_WRITERS,
// each to be moved into its owner's service (issue 42): the list may only shrink, so a new writer
// outside the owner fails here, and so does a listed one that is gone (remove it from the list).
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");

/** Each table (its Drizzle name in db/schema) and the module (server/src/modules/<name>, or lib) that writes it. */
export const TABLE_OWNERS: Record<string, string> = {
  users: "users",
  organizations: "organizations",
  memberships: "organizations",
  invitations: "teams",
  settings: "settings",
  backups: "backups",
  backupParts: "uploads",
  backupCopies: "copies",
  backupProtections: "backup-protection",
  rateLimits: "lib",
  auditLogs: "audit",
  apiTokens: "api-tokens",
  kbArticles: "kb",
  ssoConnections: "sso",
  ssoSignIns: "sso",
  databases: "databases",
  agentDatabases: "databases",
  agents: "agents",
  removedAgents: "agents",
  agentJobs: "agent-jobs",
  recoveryCodes: "two-factor",
  restores: "restores",
  passwordResetTokens: "auth",
  pitrSlices: "pitr",
  mailOutbox: "mail",
  emailChanges: "email-change",
  plans: "plans",
  webhooks: "webhooks",
  webhookDeliveries: "webhooks",
  webhookAttempts: "webhooks",
};

/** "table module" pairs written before the rule, waiting to move into the owner's service. */
const KNOWN_WRITERS = new Set([
  "apiTokens auth",
  "backupParts backups",
  "memberships auth",
  "organizations auth",
  "recoveryCodes auth",
  "restores agent-link",
  "restores agents",
  "settings auth",
  "settings drills",
  "settings organizations",
  "settings retention",
  "users auth",
  "users downloads",
  "users email-change",
  "users two-factor",
]);

function serverFiles(): string[] {
  const listed = Bun.spawnSync(["git", "ls-files", "--cached", "--others", "--exclude-standard", "server/src"], { cwd: ROOT });
  return listed.stdout
    .toString()
    .split("\n")
    .filter((file) => /\.tsx?$/.test(file) && !/\.test\.tsx?$/.test(file));
}

/** The module a file belongs to: its folder under modules/, else its folder (lib, storage) or file under server/src. */
export function moduleOf(file: string): string {
  const parts = file.split("/");
  return parts[2] === "modules" ? parts[3]! : parts[2]!;
}

/** Every Drizzle write of a known table in `source`, as "table module" pairs. */
export function writesIn(file: string, source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(/\.(?:insert|update|delete)\(\s*([A-Za-z]+)\s*\)/g)) {
    if (match[1]! in TABLE_OWNERS) found.push(`${match[1]} ${moduleOf(file)}`);
  }
  return found;
}

describe("one owner a table", () => {
  const writes = new Set(serverFiles().flatMap((file) => writesIn(file, readFileSync(resolve(ROOT, file), "utf8"))));

  test("every write of a table is in its owner, or a known writer waiting to move", () => {
    const strays = [...writes].filter((pair) => {
      const [table, module] = pair.split(" ") as [string, string];
      return TABLE_OWNERS[table] !== module && !KNOWN_WRITERS.has(pair);
    });
    expect(strays).toEqual([]);
  });

  test("the known writers still write (a moved one leaves the list)", () => {
    expect([...KNOWN_WRITERS].filter((pair) => !writes.has(pair))).toEqual([]);
  });

  test("the check sees a write outside the owner", () => {
    expect(writesIn("server/src/modules/pitr/x.ts", "await ctx.db.update(backups).set({ status: 'failed' })")).toEqual(["backups pitr"]);
    expect(writesIn("server/src/modules/backups/x.ts", "tx.insert( backups ).values(row); storage.delete(key)")).toEqual(["backups backups"]);
  });

  test("every table of db/schema has an owner", () => {
    const schema = Bun.spawnSync(["git", "grep", "-h", "-o", "-E", "export const [A-Za-z]+ = pgTable", "--", "db/schema"], { cwd: ROOT });
    const tables = schema.stdout
      .toString()
      .split("\n")
      .filter(Boolean)
      .map((line) => line.split(" ")[2]!);
    expect(tables.filter((table) => !(table in TABLE_OWNERS))).toEqual([]);
  });
});
