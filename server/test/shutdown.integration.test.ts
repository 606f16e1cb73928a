// SIGTERM (systemctl stop, docker stop) while an agent and a browser hold their sockets and an
// upload is in flight: a real server process on the embedded defaults, restarted on the same data.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentApi, UPLOAD_PART_SIZE } from "@protocol/agent-protocol";
import { type ServerProcess, startServer, stopServer } from "../../testkit/server-process";
import { registerScriptedAgent } from "./scripted-agent";

const dataDir = mkdtempSync(join(tmpdir(), "dbvault-shutdown-"));
const running: ServerProcess[] = [];
afterAll(async () => {
  for (const server of running) if (server.process.exitCode === null) server.process.kill("SIGKILL");
  await Promise.all(running.map((server) => server.exited));
  rmSync(dataDir, { recursive: true, force: true });
});

// The PostgreSQL pass of scripts/test.sh reruns server/ tests; this one runs on the embedded database.
const testOnce = process.env.TEST_DATABASE_URL ? test.skip : test;

testOnce(
  "SIGTERM with sockets open and an upload stalled mid-part: the server exits 0 within its grace, and the part is not recorded",
  async () => {
    const server = await startServer({ DATA_DIR: dataDir });
    running.push(server);
    const registered = (await (
      await fetch(`${server.url}/api/auth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "Shut Down", email: "shutdown@example.com", password: "secret123" }),
      })
    ).json()) as { token: string; user: { apiKey: string } };
    const authorization = { authorization: `Bearer ${registered.token}` };
    const agent = await registerScriptedAgent(server.url, registered.user.apiKey, ["orders"]);
    await agent.connect();
    const browser = new WebSocket(`${server.url.replace(/^http/, "ws")}/api/ws`);
    await new Promise((resolve) => (browser.onopen = resolve));
    browser.send(JSON.stringify({ type: "auth", token: registered.token }));

    await fetch(`${server.url}/api/backups`, {
      method: "POST",
      headers: { ...authorization, "content-type": "application/json" },
      body: JSON.stringify({ databaseName: "orders" }),
    });
    const { backupId } = await agent.waitFor("backup");
    // A part whose sender stalls after its first MiB (a network gone quiet).
    let bodyStarted!: () => void;
    const started = new Promise<void>((resolve) => (bodyStarted = resolve));
    const stalled = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new Uint8Array(1024 * 1024));
        bodyStarted();
        return new Promise(() => {}); // never more
      },
    });
    const upload = fetch(`${server.url}${agentApi.part(backupId, 0)}`, {
      method: "PUT",
      headers: { ...agent.headers(), "content-length": String(UPLOAD_PART_SIZE) },
      body: stalled,
      duplex: "half",
    } as RequestInit).catch((error: Error) => error);
    await started;

    // Before: a graceful stop waited for every socket, for ever (killed here after 20 s).
    expect(await stopServer(server, 20_000)).toBe(0);
    expect(await upload).toBeInstanceOf(Error);
    // The operator watching the log knows why the stop takes its few seconds.
    expect(server.output()).toContain("stopping on SIGTERM: no new connections; waiting up to 5 s for requests in flight (uploads, downloads) to finish");
    // How many requests it waits for: the stalled part's, unless the stop came before the server
    // had read its headers (the client's first MiB being sent says nothing of that).
    expect(server.output()).toMatch(/"requests":\d+/);
    expect(server.output()).toContain("stopped");
    browser.close();

    const restarted = await startServer({ DATA_DIR: dataDir });
    running.push(restarted);
    const status = (await (await fetch(`${restarted.url}${agentApi.uploadStatus(backupId)}`, { headers: agent.headers() })).json()) as { parts: unknown[] };
    expect(status.parts).toEqual([]);
    const backup = (await (await fetch(`${restarted.url}/api/backups/${backupId}`, { headers: authorization })).json()) as { status: string };
    expect(backup.status).not.toBe("completed");
    // The agent's disconnection was recorded on the way down.
    const system = (await (await fetch(`${restarted.url}/api/settings/system-status`, { headers: authorization })).json()) as { agents: { status: string }[] };
    expect(system.agents.map((a) => a.status)).toEqual(["offline"]);
    expect(await stopServer(restarted)).toBe(0);
    // A clean stop says "stopped", with no stack before it.
    expect(restarted.output()).toContain("stopped");
    expect(restarted.output()).not.toContain("isn't running");
    expect(restarted.output()).not.toMatch(/^\s+at /m);
  },
  120_000,
);
