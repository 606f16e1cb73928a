import { describe, expect, test } from "bun:test";
import { formatDateTimeToSecond } from "../../../lib/format-date";
import { auditBadgeTone, describeAuditEntity, formatAuditDetails, formatAuditTimestamp, labelAuditAction, labelAuditField, truncateText } from "./audit-format";

describe("timestamp", () => {
  test("formats as 'MMM d, yyyy HH:mm:ss' with a 24-hour clock", () => {
    expect(formatAuditTimestamp(new Date(2025, 2, 5, 14, 7, 9))).toBe("Mar 5, 2025 14:07:09");
    expect(formatAuditTimestamp(new Date(2024, 11, 31, 0, 0, 0))).toBe("Dec 31, 2024 00:00:00");
  });

  test("a bad date gives empty text", () => {
    expect(formatAuditTimestamp("not a date")).toBe("");
  });
});

describe("details", () => {
  test("short details are the raw JSON", () => {
    expect(formatAuditDetails({ from: 24, to: 168 })).toEqual({ text: "From: 24 · To: 168", full: "From: 24 · To: 168" });
  });

  test("longer than 50 characters: the first 50 plus '...'", () => {
    const details = { databaseName: "production-db", backupId: "0123456789abcdef01234567", type: "manual" };
    const { text, full } = formatAuditDetails(details);
    expect(full).toBe("Database name: production-db · Backup ID: 0123456789abcdef01234567 · Type: manual");
    expect(text).toBe(`${full.slice(0, 50)}...`);
    expect(text).toHaveLength(53);
  });

  test("exactly 50 characters is not cut", () => {
    const fifty = "x".repeat(50);
    expect(truncateText(fifty, 50)).toBe(fifty);
    expect(truncateText(`${fifty}y`, 50)).toBe(`${fifty}...`);
  });

  test("no details show nothing", () => {
    expect(formatAuditDetails({}).text).toBe("");
    expect(formatAuditDetails(null).text).toBe("");
  });
});

describe("entity column", () => {
  test("agent actions name the agent, else its hostname", () => {
    expect(describeAuditEntity("AGENT_REGISTERED", { name: "db-1", hostname: "h" })).toBe("Agent: db-1");
    expect(describeAuditEntity("BACKUP_CREATED", { type: "manual", agentName: "db-host-3f2a" })).toBe("Agent: db-host-3f2a");
    expect(describeAuditEntity("AGENT_DISCONNECTED", { hostname: "db-host.internal" })).toBe("Agent: db-host.internal");
    expect(describeAuditEntity("AGENT_DISCONNECTED", {})).toBe("Agent: unknown");
  });

  test("automatic backups, AUTO actions and storage actions are the System", () => {
    expect(describeAuditEntity("BACKUP_CREATED", { type: "auto" })).toBe("System");
    expect(describeAuditEntity("BACKUP_FAILED", { type: "auto" })).toBe("System");
    expect(describeAuditEntity("BACKUP_DELETED_AUTO", {})).toBe("System");
    expect(describeAuditEntity("STORAGE_LIMIT_EXCEEDED", { databaseName: "x" })).toBe("System");
  });

  test("everything else is the User", () => {
    expect(describeAuditEntity("BACKUP_CREATED", { type: "manual" })).toBe("User");
    expect(describeAuditEntity("SETTINGS_UPDATED", {})).toBe("User");
    expect(describeAuditEntity("PASSWORD_CHANGED", null)).toBe("User");
  });

  test("in a team, a member's entry names the member and their role", () => {
    const actor = { name: "Ada", email: "ada@example.com", role: "operator" as const };
    expect(describeAuditEntity("BACKUP_CREATED", { type: "manual" }, actor)).toBe("User: Ada (ada@example.com), Operator");
    expect(describeAuditEntity("SETTINGS_UPDATED", {}, { name: "", email: "bo@example.com", role: "admin" })).toBe("User: bo@example.com, Admin");
    // What an agent or the server did on its own keeps its own label.
    expect(describeAuditEntity("AGENT_REGISTERED", { name: "db-1" }, actor)).toBe("Agent: db-1");
    // 'type: auto' makes only backup actions automatic.
    expect(describeAuditEntity("RESTORE_REQUESTED", { type: "auto" })).toBe("User");
  });
});

describe("action badges", () => {
  test("failures red, deletions orange, completions green, starts blue", () => {
    expect(auditBadgeTone("BACKUP_FAILED")).toBe("red");
    expect(auditBadgeTone("STORAGE_LIMIT_EXCEEDED")).toBe("red");
    expect(auditBadgeTone("AGENT_DISCONNECTED")).toBe("red");
    expect(auditBadgeTone("BACKUP_DELETED_MANUAL")).toBe("orange");
    expect(auditBadgeTone("BACKUP_DELETED_AUTO")).toBe("orange");
    expect(auditBadgeTone("RESTORE_COMPLETED")).toBe("green");
    expect(auditBadgeTone("BACKUP_ANOMALY")).toBe("red");
    expect(auditBadgeTone("BACKUP_VERIFICATION_FAILED")).toBe("red");
    expect(auditBadgeTone("DRILL_FAILED")).toBe("red");
    expect(auditBadgeTone("BACKUP_VERIFIED")).toBe("green");
    expect(auditBadgeTone("ANOMALY_RESOLVED")).toBe("green");
    expect(auditBadgeTone("AGENT_REGISTERED")).toBe("green");
    expect(auditBadgeTone("BACKUP_CREATED")).toBe("blue");
    expect(auditBadgeTone("RESTORE_INITIATED")).toBe("blue");
  });

  test("account security amber, setting changes violet, unknown grey", () => {
    expect(auditBadgeTone("API_KEY_REGENERATED")).toBe("amber");
    expect(auditBadgeTone("PASSWORD_CHANGED")).toBe("amber");
    expect(auditBadgeTone("EMAIL_CHANGED")).toBe("amber");
    expect(auditBadgeTone("TWO_FACTOR_ENABLED")).toBe("amber");
    expect(auditBadgeTone("TWO_FACTOR_DISABLED")).toBe("amber");
    expect(auditBadgeTone("RECOVERY_CODE_USED")).toBe("amber");
    for (const action of ["SSO_CONFIGURED", "SSO_REMOVED", "SSO_SIGNED_IN"]) expect(auditBadgeTone(action)).toBe("amber");
    expect(auditBadgeTone("BACKUP_PROTECTION_OFF_REQUESTED")).toBe("amber");
    expect(auditBadgeTone("FREQUENCY_UPDATED")).toBe("violet");
    expect(auditBadgeTone("PLAN_CHANGED")).toBe("violet");
    expect(auditBadgeTone("SOMETHING_NEW")).toBe("grey");
  });
});

test("action labels read as words", () => {
  expect(labelAuditAction("API_KEY_REGENERATED")).toBe("API Key Regenerated");
  expect(labelAuditAction("BACKUP_DELETED_AUTO")).toBe("Backup Deleted Auto");
});

describe("details as words, not raw JSON", () => {
  test("field names read as words, with IDs and acronyms in capitals", () => {
    expect(labelAuditField("databaseName")).toBe("Database name");
    expect(labelAuditField("backupId")).toBe("Backup ID");
    expect(labelAuditField("apiKey")).toBe("API key");
    expect(labelAuditField("from")).toBe("From");
  });

  test("times in the app's one date format, lists joined, nested details in parentheses, empty fields left out", () => {
    const at = "2026-12-07T21:30:05.000Z";
    expect(formatAuditDetails({ offAt: at }).full).toBe(`Off at: ${formatDateTimeToSecond(at)}`);
    expect(formatAuditDetails({ name: "nightly", scopes: ["read", "backup"], reason: null }).full).toBe("Name: nightly · Scopes: read, backup");
    expect(formatAuditDetails({ kind: "size", figures: { expected: 10, found: 2 } }).full).toBe("Kind: size · Figures: (Expected: 10 · Found: 2)");
    expect(formatAuditDetails({ to: "b@x.test" }).full).not.toContain("{");
  });
});
