// Two server processes on one embedded (PGlite) data directory, and a server killed mid-write:
// real processes started as `npm start` starts them, on the README's embedded defaults.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EMBEDDED_DATABASE_LOCK_FILE } from "../src/lib/embedded-database-lock";
import { type ServerProcess, spawnServer, startServer, stopServer } from "../../testkit/server-process";
import { waitUntil } from "../../testkit/wait-until";

// The PostgreSQL pass of scripts/test.sh reruns server/ tests; these are about the embedded
// database only, so once is enough.
const describeOnce = process.env.TEST_DATABASE_URL ? describe.skip : describe;

const TIMEOUT_MS = 120_000;

async function register(url: string, email: string) {
  const response = await fetch(`${url}/api/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Lock Tester", email, password: "secret123" }),
  });
  return response.status;
}

async function signIn(url: string, email: string) {
  const response = await fetch(`${url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: "secret123" }),
  });
  return response.status;
}

describeOnce("one embedded database, one server", () => {
  let dataDir: string;
  const running: ServerProcess[] = [];
  const env = () => ({ DATA_DIR: dataDir, REGISTRATIONS_PER_HOUR: "100000" });

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), "dbvault-lock-"));
  });
  afterAll(async () => {
    for (const server of running) if (server.process.exitCode === null) server.process.kill("SIGKILL");
    await Promise.all(running.map((server) => server.exited));
    rmSync(dataDir, { recursive: true, force: true });
  });

  test(
    "a second server on the same data directory refuses to start, naming the first; the first keeps serving",
    async () => {
      const first = await startServer(env());
      running.push(first);
      expect(await register(first.url, "first@example.com")).toBe(201);

      const second = spawnServer(env());
      running.push(second);
      // Without the lock the second one started too, and each then saw only its own writes.
      const outcome = await waitUntil(() => (second.process.exitCode !== null ? "exited" : second.output().includes("DBVault is running") && "started"), {
        timeout: 60_000,
        message: "the second server to exit or start",
      });
      expect(outcome).toBe("exited");
      expect(await second.exited).toBe(1);
      expect(second.output()).toContain("is in use by another DBVault server");
      expect(second.output()).toContain(`(process ${first.process.pid})`);
      expect(second.output()).toContain(join(dataDir, EMBEDDED_DATABASE_LOCK_FILE));
      expect(second.output()).not.toContain("DBVault is running");

      expect(await signIn(first.url, "first@example.com")).toBe(200);
      expect(await register(first.url, "first-2@example.com")).toBe(201);
      expect(await stopServer(first)).toBe(0);
      // A clean stop leaves no lock behind.
      expect(existsSync(join(dataDir, EMBEDDED_DATABASE_LOCK_FILE))).toBe(false);
    },
    TIMEOUT_MS,
  );

  test(
    "a server killed with SIGKILL while writing: the next start takes its lock over and every acknowledged write is there",
    async () => {
      const victim = await startServer(env());
      running.push(victim);
      const acknowledged: string[] = [];
      let stop = false;
      // Registrations keep writing (users, audit log, rate-limit rows) until the kill cuts them.
      const writers = [1, 2, 3].map(async (writer) => {
        for (let n = 0; !stop; n++) {
          const email = `killed-${writer}-${n}@example.com`;
          const status = await register(victim.url, email).catch(() => null);
          if (status === 201) acknowledged.push(email);
          else if (status === null) return;
        }
      });
      await waitUntil(() => acknowledged.length >= 6, { interval: 20, message: "six registrations acknowledged before the kill" });
      victim.process.kill("SIGKILL");
      await victim.exited;
      stop = true;
      await Promise.all(writers);
      expect(readFileSync(join(dataDir, EMBEDDED_DATABASE_LOCK_FILE), "utf8").trim()).toBe(String(victim.process.pid));

      const next = await startServer(env());
      running.push(next);
      expect(next.output()).toContain("did not stop cleanly");
      for (const email of ["first@example.com", "first-2@example.com", ...acknowledged]) {
        expect({ email, status: await signIn(next.url, email) }).toEqual({ email, status: 200 });
      }
      expect(await stopServer(next)).toBe(0);
    },
    TIMEOUT_MS,
  );
});
