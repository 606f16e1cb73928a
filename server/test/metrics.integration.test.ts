// GET /metrics: off unless METRICS_TOKEN is set, bearer-protected, parseable by a Prometheus
// text-format parser, and its figures are the database's (so every instance reports the same).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { and, count, eq, inArray } from "drizzle-orm";
import parsePrometheus, { type MetricFamily } from "parse-prometheus-text-format";
import { agents, auditLogs, backups, databases, pitrSlices } from "@db/schema";
import { DURATION_BUCKETS } from "../src/modules/metrics/service";
import { createApp } from "../src/app";
import { createContext } from "../src/bootstrap";
import { silentLogger } from "../src/lib/logger";
import { waitUntil } from "../../testkit/wait-until";
import { startTestServer, type TestServer } from "./harness";
import { registerScriptedAgent } from "./scripted-agent";

const TOKEN = "metrics-token-for-tests-0123456789";
let server: TestServer;
let base: string;

beforeAll(async () => {
  server = await startTestServer({ METRICS_TOKEN: TOKEN });
  base = server.listen();
});
afterAll(() => server.close());

async function scrape(): Promise<Map<string, MetricFamily>> {
  const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/plain");
  return new Map(parsePrometheus(await res.text()).map((family) => [family.name, family]));
}

const value = (families: Map<string, MetricFamily>, name: string, labels: Record<string, string> = {}) => {
  const sample = families.get(name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v)) as { value: string } | undefined;
  return sample === undefined ? undefined : Number(sample.value);
};

async function auditCount(action: "BACKUP_COMPLETED" | "BACKUP_FAILED" | "BACKUP_VERIFIED") {
  const [row] = await server.ctx.db.select({ total: count() }).from(auditLogs).where(eq(auditLogs.action, action));
  return row!.total;
}

describe("GET /metrics", () => {
  test("answers 401 without the token or with a wrong one", async () => {
    expect((await fetch(`${base}/metrics`)).status).toBe(401);
    expect((await fetch(`${base}/metrics`, { headers: { authorization: "Bearer wrong-token-0123456789" } })).status).toBe(401);
  });

  test("is off (404) when METRICS_TOKEN is not set", async () => {
    const plain = await startTestServer();
    try {
      expect((await plain.call("GET", "/metrics")).status).toBe(404);
    } finally {
      await plain.close();
    }
  });

  test("parses as Prometheus text, with the service's and the process's metrics", async () => {
    const families = await scrape();
    for (const name of [
      "dbvault_backups_total",
      "dbvault_restores_total",
      "dbvault_backup_bytes_stored",
      "dbvault_backup_duration_seconds",
      "dbvault_agents_connected",
      "dbvault_scheduler_lag_seconds",
      "dbvault_upload_bytes_total",
      "dbvault_verifications_total",
      "process_resident_memory_bytes",
      "process_cpu_seconds_total",
    ]) {
      expect(families.has(name)).toBe(true);
    }
    expect(families.get("dbvault_backups_total")!.type).toBe("COUNTER");
    expect(families.get("dbvault_backup_duration_seconds")!.type).toBe("HISTOGRAM");
    expect(value(families, "process_resident_memory_bytes")).toBeGreaterThan(1_000_000);
  });

  test("counters and gauges match the database after a real backup", async () => {
    const before = await scrape();
    const user = await server.registerUser();
    const agent = await registerScriptedAgent(base, user.apiKey, ["orders"]);
    await agent.connect();
    await server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "orders" } });
    const { backupId } = await agent.waitFor("backup");
    const bytes = randomBytes(12_345);
    expect((await agent.upload(backupId, bytes)).status).toBe(200);

    const after = await scrape();
    expect(value(after, "dbvault_backups_total", { status: "completed" })).toBe(await auditCount("BACKUP_COMPLETED"));
    expect(value(after, "dbvault_backups_total", { status: "failed" })).toBe(await auditCount("BACKUP_FAILED"));
    expect(value(after, "dbvault_backups_total", { status: "completed" })).toBe(value(before, "dbvault_backups_total", { status: "completed" })! + 1);
    expect(value(after, "dbvault_upload_bytes_total")).toBe(value(before, "dbvault_upload_bytes_total")! + bytes.byteLength);

    const completed = await server.ctx.db.select().from(backups).where(eq(backups.status, "completed"));
    expect(value(after, "dbvault_backup_bytes_stored")).toBe(completed.reduce((total, b) => total + b.size, 0));
    const [connected] = await server.ctx.db.select({ total: count() }).from(agents).where(eq(agents.status, "active"));
    expect(value(after, "dbvault_agents_connected")).toBe(connected!.total);

    const histogram = after.get("dbvault_backup_duration_seconds")!.metrics[0] as { buckets: Record<string, string>; count: string };
    expect(Number(histogram.count)).toBe(completed.length);
    expect(Object.keys(histogram.buckets).map(Number).filter(Number.isFinite)).toEqual(DURATION_BUCKETS);
    expect(Number(histogram.buckets["+Inf"] ?? histogram.count)).toBe(completed.length);
  });

  test("scheduler lag is how late the most overdue due backup is", async () => {
    const user = await server.registerUser();
    const agent = await registerScriptedAgent(base, user.apiKey, ["lagging"]);
    await agent.connect();
    await server.ctx.db
      .update(databases)
      .set({ nextBackupAt: new Date(Date.now() - 3_600_000) })
      .where(and(eq(databases.organizationId, user.id), inArray(databases.name, ["lagging"])));
    const lag = value(await scrape(), "dbvault_scheduler_lag_seconds")!;
    expect(lag).toBeGreaterThanOrEqual(3600);
    expect(lag).toBeLessThan(3600 + 120);
  });

  test("point-in-time recovery: slices stored and, per database switched on, how far behind its newest slice is", async () => {
    const user = await server.registerUser();
    const agent = await registerScriptedAgent(base, user.apiKey, ["shipped"]);
    const [database] = await server.ctx.db.update(databases).set({ pitrEnabled: true }).where(eq(databases.organizationId, user.id)).returning();
    const before = value(await scrape(), "dbvault_pitr_slices_total")!;
    const seconds = Math.floor(Date.now() / 1000) - 90;
    const slice = (sequence: number, end: number) => ({
      organizationId: user.id,
      databaseId: database!.id,
      agentId: agent.agentId,
      chain: "f".repeat(32),
      sequence,
      startTs: BigInt(end - 10) << 32n,
      endTs: (BigInt(end) << 32n) | 3n,
      entryCount: 1,
      size: 10,
      sha256: "0".repeat(64),
      reason: sequence === 0 ? ("started" as const) : ("continues" as const),
      storageKey: `k${sequence}`,
      stored: true,
    });
    await server.ctx.db.insert(pitrSlices).values([slice(0, seconds - 10), slice(1, seconds)]);
    const families = await scrape();
    expect(value(families, "dbvault_pitr_slices_total")).toBe(before + 2);
    const lag = value(families, "dbvault_pitr_lag_seconds", { database: database!.id })!;
    expect(lag).toBeGreaterThanOrEqual(90);
    expect(lag).toBeLessThan(90 + 60);
    // Switched off, the database is no longer watched.
    await server.ctx.db.update(databases).set({ pitrEnabled: false }).where(eq(databases.id, database!.id));
    expect(value(await scrape(), "dbvault_pitr_lag_seconds", { database: database!.id })).toBeUndefined();
  });

  test("verifications are counted by result as agents report them, and never go down", async () => {
    const before = await scrape();
    expect(before.get("dbvault_verifications_total")!.type).toBe("COUNTER");
    // One user a backup: the free plan allows one database and one manual backup a period.
    const verifiedBackup = async (status: "ok" | "failed") => {
      const user = await server.registerUser();
      const agent = await registerScriptedAgent(base, user.apiKey, ["checked"]);
      await agent.connect();
      expect((await server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "checked" } })).status).toBe(201);
      const { backupId } = await agent.waitFor("backup");
      expect((await agent.upload(backupId, randomBytes(1024))).status).toBe(200);
      agent.send({
        type: "backup.verified",
        backupId,
        verification: { status, namespaces: {}, ...(status === "failed" ? { error: "a chunk failed authentication" } : {}) },
      });
      await waitUntil(async () => (await server.ctx.db.select().from(backups).where(eq(backups.id, backupId)))[0]?.verifiedAt, {
        message: `the ${status} report recorded`,
      });
      return { backupId, user };
    };
    const ok = await verifiedBackup("ok");
    await verifiedBackup("failed");
    const after = await scrape();
    expect(value(after, "dbvault_verifications_total", { status: "ok" })).toBe(value(before, "dbvault_verifications_total", { status: "ok" })! + 1);
    expect(value(after, "dbvault_verifications_total", { status: "failed" })).toBe(value(before, "dbvault_verifications_total", { status: "failed" })! + 1);
    expect(value(after, "dbvault_verifications_total", { status: "ok" })).toBe(await auditCount("BACKUP_VERIFIED"));
    // A deleted backup leaves the count as it was (a counter only rises).
    expect((await server.call("DELETE", `/api/backups/${ok.backupId}`, { token: ok.user.token })).status).toBe(200);
    expect(value(await scrape(), "dbvault_verifications_total", { status: "ok" })).toBe(value(after, "dbvault_verifications_total", { status: "ok" })!);
  });

  test("a second instance on the same database reports the same service-wide figures", async () => {
    const user = await server.registerUser();
    const agent = await registerScriptedAgent(base, user.apiKey, ["twice"]);
    await agent.connect();
    await server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "twice" } });
    const { backupId } = await agent.waitFor("backup");
    expect((await agent.upload(backupId, randomBytes(777))).status).toBe(200);

    const other = await createContext(server.ctx.config, server.ctx.database, { log: silentLogger });
    try {
      const answer = await createApp(other).handle(new Request("http://localhost/metrics", { headers: { authorization: `Bearer ${TOKEN}` } }));
      const fromOther = new Map(parsePrometheus(await answer.text()).map((family) => [family.name, family]));
      const fromFirst = await scrape();
      for (const name of [
        "dbvault_backups_total",
        "dbvault_restores_total",
        "dbvault_verifications_total",
        "dbvault_backup_bytes_stored",
        "dbvault_agents_connected",
      ]) {
        expect(fromOther.get(name)!.metrics).toEqual(fromFirst.get(name)!.metrics);
      }
      expect(fromOther.get("dbvault_backup_duration_seconds")!.metrics).toEqual(fromFirst.get("dbvault_backup_duration_seconds")!.metrics);
      // Uploads are counted by the instance that stored them: the other one saw none.
      expect(value(fromOther, "dbvault_upload_bytes_total")).toBe(0);
      expect(value(fromFirst, "dbvault_upload_bytes_total")).toBeGreaterThanOrEqual(777);
    } finally {
      await other.bus.stop();
    }
  });

  test("docs/monitoring: the Grafana dashboard charts every dbvault metric, and the alert rules name only metrics that exist", async () => {
    const families = await scrape();
    const docs = join(import.meta.dir, "..", "..", "docs", "monitoring");
    const dashboard = JSON.parse(readFileSync(join(docs, "grafana-dashboard.json"), "utf8")) as { panels: { targets?: { expr: string }[] }[] };
    const charted = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr)).join("\n");
    const ours = [...families.keys()].filter((name) => name.startsWith("dbvault_"));
    expect(ours.length).toBeGreaterThanOrEqual(8);
    for (const name of ours) expect(charted).toContain(name);

    const rules = Bun.YAML.parse(readFileSync(join(docs, "prometheus-alerts.yml"), "utf8")) as { groups: { rules: { alert: string; expr: string }[] }[] };
    const exprs = rules.groups.flatMap((group) => group.rules.map((rule) => rule.expr));
    for (const expr of [...exprs, charted]) {
      for (const used of expr.match(/\b(dbvault|process|nodejs)_[a-z_]+/g) ?? []) {
        const family = used.replace(/_(bucket|sum|count)$/, "");
        expect([used, family].some((name) => families.has(name))).toBe(true);
      }
    }
    for (const name of [
      "dbvault_backups_total",
      "dbvault_restores_total",
      "dbvault_verifications_total",
      "dbvault_scheduler_lag_seconds",
      "dbvault_agents_connected",
    ]) {
      expect(exprs.some((expr) => expr.includes(name))).toBe(true);
    }
  });
});
