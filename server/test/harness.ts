// Builds a real server context (real database, real services) for tests, and small helpers to
// call the API in-process (`app.handle`) or over real HTTP on loopback.
import { afterAll, beforeAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq, isNotNull } from "drizzle-orm";
import { agents, users } from "@db/schema";
import { openTestDatabase } from "../../testkit/test-database";
import { createApp } from "../src/app";
import { createContext } from "../src/bootstrap";
import { loadConfig } from "../src/config";
import type { AppContext } from "../src/context";
import { silentLogger } from "../src/lib/logger";
import type { Mail, Mailer } from "../src/modules/mail/mailer";
import { DISCONNECT_GRACE_MS, sweepAgentStatuses } from "../src/modules/agents/service";
import { waitUntil } from "../../testkit/wait-until";

export type CallResult<T = any> = { status: number; body: T; headers: Headers };

export type TestServer = {
  ctx: AppContext;
  app: ReturnType<typeof createApp>;
  /** Mail sent through the context's mailer, when the test did not ask for real SMTP. */
  sentMail: Mail[];
  call<T = any>(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ): Promise<CallResult<T>>;
  /** Registers a new user with a unique e-mail; returns its token, user and password. */
  registerUser(overrides?: { name?: string; email?: string; password?: string }): Promise<TestUser>;
  /** Registers a user and gives it the admin role. */
  registerAdmin(): Promise<TestUser>;
  /** Listens on a loopback port; returns the base URL. */
  listen(): string;
  /**
   * Restarts the server as a crashed process would be: HTTP and sockets cut at once, requests in
   * flight abandoned (never finished), in-memory state gone; then a new context on the same
   * metadata database, data directory and port. `server.ctx` and `server.app` are the new ones.
   */
  restart(options?: { beforeStart?: () => void | Promise<void> }): Promise<void>;
  close(): Promise<void>;
};

export type TestUser = { token: string; id: string; email: string; password: string; apiKey: string; name: string };

let counter = 0;
export const uniqueEmail = (prefix = "user") => `${prefix}-${Date.now().toString(36)}-${++counter}@example.com`;

/**
 * Moves the server's clock forward by `ms` from now on (on top of real time), for tests whose
 * timestamps must differ or come in order without waiting for real time to pass.
 */
export function advanceServerClock(server: TestServer, ms: number): void {
  const previous = server.ctx.now;
  server.ctx.now = () => new Date(previous().getTime() + ms);
}

/**
 * Lets a closed agent socket's grace period pass (its close time is put that far back, the
 * server's clock left alone) and runs the sweep that announces it: AGENT_DISCONNECTED, the
 * e-mail and agent.offline.
 */
export async function announceAgentDisconnection(server: TestServer, agentId: string): Promise<void> {
  const closed = and(eq(agents.id, agentId), eq(agents.status, "offline"), isNotNull(agents.disconnectedAt));
  await waitUntil(async () => (await server.ctx.db.select({ id: agents.id }).from(agents).where(closed)).length > 0, {
    message: "the agent's socket close to be recorded",
  });
  await server.ctx.db
    .update(agents)
    .set({ disconnectedAt: new Date(server.ctx.now().getTime() - DISCONNECT_GRACE_MS - 1_000) })
    .where(closed);
  await sweepAgentStatuses(server.ctx);
}

/** A server clock that stands still: it moves only when the test moves it. */
export interface StoppedClock {
  /** The server's time, in milliseconds since the epoch. */
  now(): number;
  /** Moves the clock by `ms` (negative: back). */
  move(ms: number): void;
}

/**
 * Stops the server's clock at the present. Tests of codes that change every 30 s, and of waits the
 * server names, move it instead of waiting: a wait holds however slow the machine is.
 */
export function stopServerClock(server: TestServer): StoppedClock {
  const start = Date.now();
  let offset = 0;
  const clock: StoppedClock = { now: () => start + offset, move: (ms) => void (offset += ms) };
  server.ctx.now = () => new Date(clock.now());
  return clock;
}

export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "dbvault-test-data-"));
  // Every request of the harness comes from one address; tests register far more accounts than
  // a real address may (registration-limit tests pass their own REGISTRATIONS_PER_HOUR).
  const config = loadConfig({ DATA_DIR: dataDir, PORT: "0", REGISTRATIONS_PER_HOUR: "1000000", ...env });
  const database = await openTestDatabase();
  const sentMail: Mail[] = [];
  const startContext = async () => {
    const started = await createContext(config, database, { log: silentLogger });
    if (!config.smtpUrl) {
      const recorder: Mailer = { send: async (mail) => void sentMail.push(mail), close() {} };
      started.mailer = recorder;
    }
    return started;
  };
  let ctx = await startContext();
  let app = createApp(ctx);
  let port = 0;

  const call: TestServer["call"] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(options.body);
    }
    const response = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: response.status, body: parsed as any, headers: response.headers };
  };

  const registerUser: TestServer["registerUser"] = async (overrides = {}) => {
    const input = { name: overrides.name ?? "Test User", email: overrides.email ?? uniqueEmail(), password: overrides.password ?? "secret123" };
    const res = await call("POST", "/api/auth/register", { body: input });
    if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
    return { token: res.body.token, id: res.body.user.id, email: input.email, password: input.password, apiKey: res.body.user.apiKey, name: input.name };
  };

  return {
    get ctx() {
      return ctx;
    },
    get app() {
      return app;
    },
    sentMail,
    call,
    registerUser,
    async registerAdmin() {
      const admin = await registerUser({ name: "Admin User", email: uniqueEmail("admin") });
      await ctx.db.update(users).set({ role: "admin" }).where(eq(users.id, admin.id));
      return admin;
    },
    listen() {
      app.listen({ port, hostname: "127.0.0.1" });
      port = app.server!.port!;
      return `http://127.0.0.1:${port}`;
    },
    async restart(options = {}) {
      const listening = Boolean(app.server);
      // Force-closing cuts uploads and sockets mid-way; their handlers are left as a killed process leaves them.
      if (app.server) await app.stop(true);
      ctx.mailer.close();
      await ctx.bus.stop();
      await options.beforeStart?.();
      ctx = await startContext();
      app = createApp(ctx);
      if (listening) app.listen({ port, hostname: "127.0.0.1" });
    },
    async close() {
      if (app.server) await app.stop(true);
      // The sockets just cut run their close handlers (agent disconnections) now: let them finish
      // before the pool ends, as the server's own shutdown does.
      await ctx.pendingWork.settled();
      ctx.mailer.close();
      await ctx.bus.stop();
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A test server listening on loopback for the whole file: started before its tests (with time to
 * spare on a loaded machine), closed after. Its fields are set once beforeAll ran.
 */
export function useListeningTestServer(env: Record<string, string> = {}): { server: TestServer; base: string } {
  const world = {} as { server: TestServer; base: string };
  beforeAll(async () => {
    world.server = await startTestServer(env);
    world.base = world.server.listen();
  }, 60_000);
  afterAll(() => world.server?.close());
  return world;
}
