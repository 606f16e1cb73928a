// The backups directory fills up in the middle of an upload: a real server process on the
// README's embedded defaults, started under `ulimit -f` with SIGXFSZ ignored, so a write past the
// limit fails with EFBIG as a write to a full disk fails with ENOSPC (a full filesystem of the
// test's own would need mount privileges; as root a read-only directory would still be writable).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentApi, UPLOAD_PART_SIZE } from "@protocol/agent-protocol";
import { type ServerProcess, startServer, stopServer } from "../../testkit/server-process";
import { registerUserWithScriptedAgent, type ScriptedAgent } from "./scripted-agent";

// The PostgreSQL pass of scripts/test.sh reruns server/ tests; this one is about local storage.
const describeOnce = process.env.TEST_DATABASE_URL ? describe.skip : describe;

/** The largest file the server may write: room for two parts, not three (and for PGlite's 16 MiB WAL segments). */
const FILE_SIZE_LIMIT_BYTES = 20 * 1024 * 1024;

describeOnce("backup storage full mid-upload", () => {
  let server: ServerProcess;
  let dataDir: string;
  let token: string;
  let agent: ScriptedAgent;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "dbvault-full-"));
    server = await startServer(
      { DATA_DIR: dataDir },
      {
        // /bin/sh's ulimit -f counts 512-byte blocks (POSIX).
        shell: `trap '' XFSZ; ulimit -f ${FILE_SIZE_LIMIT_BYTES / 512};`,
      },
    );
    ({ token, agent } = await registerUserWithScriptedAgent(server.url, { name: "Full Disk", email: "full@example.com", password: "secret123" }, ["orders"]));
  }, 120_000);

  afterAll(async () => {
    await agent?.disconnect().catch(() => {});
    if (server) await stopServer(server);
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("the part that does not fit is refused with a 503 that says so; nothing of it is counted or recorded as stored", async () => {
    const authorization = { authorization: `Bearer ${token}` };
    const triggered = await fetch(`${server.url}/api/backups`, {
      method: "POST",
      headers: { ...authorization, "content-type": "application/json" },
      body: JSON.stringify({ databaseName: "orders" }),
    });
    expect(triggered.status).toBe(201);
    const { backupId } = await agent.waitFor("backup");
    const bytes = randomBytes(3 * UPLOAD_PART_SIZE);
    const part = (n: number) => bytes.subarray(n * UPLOAD_PART_SIZE, (n + 1) * UPLOAD_PART_SIZE);

    expect((await agent.uploadPart(backupId, 0, part(0))).status).toBe(200);
    expect((await agent.uploadPart(backupId, 1, part(1))).status).toBe(200);
    const refused = await agent.uploadPart(backupId, 2, part(2));
    const text = await refused.text();
    expect({ status: refused.status, code: JSON.parse(text).code }).toEqual({ status: 503, code: "SERVICE_UNAVAILABLE" });
    expect(JSON.parse(text).message).toContain("Backup storage is temporarily unavailable");
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    // Nothing of the server's paths or the system's error reaches the agent.
    for (const internal of [dataDir, "EFBIG", backupId]) expect(text).not.toContain(internal);

    // Only the two stored parts count, and the backup cannot complete without the third.
    const status = (await (await fetch(`${server.url}${agentApi.uploadStatus(backupId)}`, { headers: agent.headers() })).json()) as {
      parts: { partNumber: number }[];
    };
    expect(status.parts.map((p) => p.partNumber)).toEqual([0, 1]);
    const profile = (await (await fetch(`${server.url}/api/user/profile`, { headers: authorization })).json()) as { storageUsed: number };
    expect(profile.storageUsed).toBe(2 * UPLOAD_PART_SIZE);
    expect((await agent.complete(backupId, bytes, 3)).status).toBe(409);
    const backup = (await (await fetch(`${server.url}/api/backups/${backupId}`, { headers: authorization })).json()) as { status: string };
    expect(backup.status).not.toBe("completed");

    expect(server.process.exitCode).toBeNull();
    expect(server.output()).toContain('"message":"storage unavailable"');
  }, 60_000);
});
