// The agent's side of the protocol against the real server over loopback: registration, the
// socket (hello, commands, reconnection), part uploads with retries, and resumable downloads.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { agents, organizations, plans } from "../../../db/schema";
import { startTestServer, type TestServer } from "../../../server/test/harness";
import { DownloadStalledError, openResumableDownload } from "../daemon/resumable-download";
import { startAgentSocket } from "./agent-socket";
import { ServerRefusedError } from "./errors";
import { createServerClient } from "./server-client";
import { uploadBackup } from "./uploader";
import { AGENT_REMOVED_CLOSE_CODE, type ServerMessage } from "../../../protocol/agent-protocol";
import { waitUntil } from "../../../testkit/wait-until";
import { deriveKeyId, encryptBuffer, generateMasterKey } from "../archive/index.ts";
import { noteKeyId } from "../daemon/jobs/backup-key-id.ts";

let server: TestServer;
let base: string;
beforeAll(async () => {
  server = await startTestServer();
  base = server.listen();
});
afterAll(() => server.close());

/**
 * A pass-through HTTP proxy in front of the server that fails chosen requests with 503, as a
 * load balancer does while an instance restarts: the agent must retry, not give up. With
 * `loseAnswers`, a chosen request reaches the server first and only its answer is lost.
 */
function startFlakyProxy(shouldFail: (request: Request, attempt: number) => boolean, options: { loseAnswers?: boolean } = {}) {
  const attempts = new Map<string, number>();
  const proxy = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      const key = `${request.method} ${url.pathname}`;
      const attempt = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, attempt);
      if (shouldFail(request, attempt)) {
        if (options.loseAnswers) {
          const body = await request.arrayBuffer();
          await fetch(`${base}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, body }).then((answer) => answer.arrayBuffer());
        } else await request.arrayBuffer().catch(() => {});
        return new Response("unavailable", { status: 503 });
      }
      return fetch(`${base}${url.pathname}${url.search}`, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        redirect: "manual",
      });
    },
  });
  return { url: `http://127.0.0.1:${proxy.port}`, attempts, stop: () => proxy.stop(true) };
}

async function setupAgent(serverUrl = base) {
  const user = await server.registerUser();
  const registering = createServerClient({ url: serverUrl, apiKey: user.apiKey });
  const { agentId, agentToken, databases } = await registering.register({
    name: "transport-test",
    hostname: "host-1",
    platform: "linux-x64",
    version: "1.2.3",
    databases: ["orders"],
  });
  expect(databases).toEqual([{ name: "orders", isActive: true }]);
  const client = createServerClient({ url: serverUrl, apiKey: user.apiKey, agentId, agentToken });
  return { user, client, agentId };
}

function collectMessages() {
  const messages: ServerMessage[] = [];
  return {
    messages,
    onMessage: (message: ServerMessage) => void messages.push(message),
    async next(type: ServerMessage["type"], timeoutMs = 5000) {
      return waitUntil(
        () => {
          const index = messages.findIndex((m) => m.type === type);
          return index === -1 ? undefined : messages.splice(index, 1)[0]!;
        },
        { timeout: timeoutMs, message: `a ${type} message` },
      );
    },
  };
}

async function* generate(bytes: Uint8Array, chunk = 100_000) {
  for (let offset = 0; offset < bytes.byteLength; offset += chunk) yield bytes.subarray(offset, offset + chunk);
}

/**
 * A backup started for a new agent whose HTTP calls go to `serverUrl` (the server, or a proxy in
 * front of it); its socket goes straight to the server (the test proxies do not forward upgrades) and
 * is closed again once the backup was asked for.
 */
async function backupBehind(serverUrl: string) {
  const { user, client } = await setupAgent(serverUrl);
  const inbox = collectMessages();
  const direct = createServerClient({ ...client.credentials, url: base });
  const socket = startAgentSocket(
    { url: direct.socketUrl, headers: direct.socketHeaders, hello: { version: "1", hostname: "h", platform: "p" } },
    { onMessage: inbox.onMessage },
  );
  await inbox.next("welcome");
  const trigger = await server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "orders" } });
  expect(trigger.status).toBe(201);
  await socket.stop();
  return { user, client, trigger };
}

/** A completed backup of `size` random bytes, uploaded by a new agent whose socket is closed again. */
async function uploadedBackup(size: number) {
  const { user, client, trigger } = await backupBehind(base);
  const bytes = randomBytes(size);
  await uploadBackup(client, trigger.body._id, generate(bytes));
  return { user, client, trigger, bytes };
}

describe("agent transport", () => {
  test("the socket says hello, receives a backup command, and the upload completes the backup", async () => {
    const { user, client, agentId } = await setupAgent();
    const inbox = collectMessages();
    const socket = startAgentSocket(
      { url: client.socketUrl, headers: client.socketHeaders, hello: { version: "1.2.3", hostname: "host-1", platform: "linux-x64" } },
      { onMessage: inbox.onMessage },
    );
    expect(await inbox.next("welcome")).toMatchObject({ agentId });
    // The hello (version, hostname) is recorded after the welcome went out.
    await waitUntil(
      async () => {
        const status = await server.call("GET", "/api/settings/system-status", { token: user.token });
        expect(status.body.agents[0]).toMatchObject({ status: "active", version: "1.2.3", hostname: "host-1" });
        return true;
      },
      { message: "the agent's hello to be recorded" },
    );

    const trigger = await server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "orders" } });
    const command = await inbox.next("backup");
    expect(command).toMatchObject({ backupId: trigger.body._id, databaseName: "orders" });

    const bytes = randomBytes(20 * 1024 * 1024 + 777);
    const result = await uploadBackup(client, trigger.body._id, generate(bytes));
    expect(result).toEqual({ size: bytes.byteLength, partCount: 3, sha256: createHash("sha256").update(bytes).digest("hex") });
    const download = await fetch(`${base}/api/backups/${trigger.body._id}/download`, { headers: { authorization: `Bearer ${user.token}` } });
    expect(download.headers.get("content-length")).toBe(String(bytes.byteLength));
    expect(
      createHash("sha256")
        .update(Buffer.from(await download.arrayBuffer()))
        .digest("hex"),
    ).toBe(result.sha256);
    await socket.stop();
  });

  test("the hello's keyring key ids are recorded on the agent and shown; keys never leave it", async () => {
    const { user, client } = await setupAgent();
    const inbox = collectMessages();
    const keyIds = [deriveKeyId(generateMasterKey()), deriveKeyId(generateMasterKey())];
    const socket = startAgentSocket(
      { url: client.socketUrl, headers: client.socketHeaders, hello: { version: "1.2.3", hostname: "host-k", platform: "linux-x64", keyIds } },
      { onMessage: inbox.onMessage },
    );
    await inbox.next("welcome");
    await waitUntil(
      async () => {
        const status = await server.call("GET", "/api/settings/system-status", { token: user.token });
        expect(status.body.agents[0]).toMatchObject({ status: "active", keyIds });
        return true;
      },
      { message: "the agent's key ids to be recorded" },
    );
    await socket.stop();
  });

  test("the key id the backup's header names is reported at completion, recorded and shown; never the key", async () => {
    const { user, client, trigger } = await backupBehind(base);
    const masterKey = generateMasterKey();
    const file = await encryptBuffer(randomBytes(300_000), { masterKey, compression: "none" });
    let keyId: string | undefined;
    // One byte at a time at first: the header is read across pieces.
    async function* pieces() {
      for (let i = 0; i < 200; i++) yield file.subarray(i, i + 1);
      yield* generate(file.subarray(200), 7_000);
    }
    await uploadBackup(
      client,
      trigger.body._id,
      noteKeyId(pieces(), (id) => (keyId = id)),
      { keyId: () => keyId },
    );
    expect(keyId).toBe(deriveKeyId(masterKey));
    const backup = await server.call("GET", `/api/backups/${trigger.body._id}`, { token: user.token });
    expect(backup.body).toMatchObject({ status: "completed", keyId: deriveKeyId(masterKey), size: file.length });
    expect(JSON.stringify(backup.body)).not.toContain(masterKey.toString("hex"));
  });

  test("a part that fails in transit is sent again, and the backup is intact", async () => {
    const proxy = startFlakyProxy((request, attempt) => request.method === "PUT" && request.url.endsWith("/parts/1") && attempt <= 2);
    try {
      const { user, client, trigger } = await backupBehind(proxy.url);
      const bytes = randomBytes(9 * 1024 * 1024);
      const result = await uploadBackup(client, trigger.body._id, generate(bytes), { sleep: async () => {} });
      expect(proxy.attempts.get(`PUT /api/agent/backups/${trigger.body._id}/parts/1`)).toBe(3);
      expect(result.size).toBe(bytes.byteLength);
      const backup = await server.call("GET", `/api/backups/${trigger.body._id}`, { token: user.token });
      expect(backup.body).toMatchObject({ status: "completed", size: bytes.byteLength, sha256: result.sha256 });
      expect((await server.call("GET", "/api/user/profile", { token: user.token })).body.storageUsed).toBe(bytes.byteLength);
    } finally {
      proxy.stop();
    }
  });

  test("a completion whose answer is lost is asked again, and the backup it completed counts as uploaded", async () => {
    const proxy = startFlakyProxy((request, attempt) => request.url.endsWith("/complete") && attempt === 1, { loseAnswers: true });
    try {
      const { user, client, trigger } = await backupBehind(proxy.url);
      const bytes = randomBytes(100_000);
      const result = await uploadBackup(client, trigger.body._id, generate(bytes), { sleep: async () => {} });
      expect(proxy.attempts.get(`POST /api/agent/backups/${trigger.body._id}/complete`)).toBe(2);
      expect(result).toMatchObject({ size: bytes.byteLength, partCount: 1 });
      const backup = await server.call("GET", `/api/backups/${trigger.body._id}`, { token: user.token });
      expect(backup.body).toMatchObject({ status: "completed", size: bytes.byteLength, sha256: result.sha256 });
    } finally {
      proxy.stop();
    }
  });

  test("a final refusal (storage limit) stops the upload at once", async () => {
    const { user, client } = await setupAgent();
    const inbox = collectMessages();
    const socket = startAgentSocket(
      { url: client.socketUrl, headers: client.socketHeaders, hello: { version: "1", hostname: "h", platform: "p" } },
      { onMessage: inbox.onMessage },
    );
    await inbox.next("welcome");
    const [small] = await server.ctx.db
      .insert(plans)
      .values({ name: `Small ${Date.now()}`, price: 0, storageLimit: 20 * 1024 * 1024, dbLimit: 1, retentionLimit: 168, frequencyLimit: 24 })
      .returning();
    await server.ctx.db.update(organizations).set({ planId: small!.id }).where(eq(organizations.id, user.id));
    const trigger = await server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "orders" } });
    // Far more than the plan's 20 MiB, produced lazily: the refusal must come long before it is all made.
    let produced = 0;
    async function* endless() {
      const block = new Uint8Array(1024 * 1024);
      while (produced < 1024 ** 3) {
        produced += block.byteLength;
        yield block;
      }
    }
    const error = await uploadBackup(client, trigger.body._id, endless(), { sleep: async () => {} }).catch((e) => e);
    expect(error).toBeInstanceOf(ServerRefusedError);
    expect((error as ServerRefusedError).code).toBe("STORAGE_LIMIT_EXCEEDED");
    expect(produced).toBeLessThan(64 * 1024 * 1024);
    const backup = await server.call("GET", `/api/backups/${trigger.body._id}`, { token: user.token });
    expect(backup.body.status).toBe("failed");
    await socket.stop();
  });

  test("the socket reconnects after the server drops it", async () => {
    const { client } = await setupAgent();
    const inbox = collectMessages();
    const disconnects: number[] = [];
    const socket = startAgentSocket(
      { url: client.socketUrl, headers: client.socketHeaders, hello: { version: "1", hostname: "h", platform: "p" } },
      { onMessage: inbox.onMessage, onDisconnected: (_reason, retryInMs) => void disconnects.push(retryInMs) },
    );
    await inbox.next("welcome");
    // The server drops the socket (as it does when an instance shuts down).
    const [agent] = await server.ctx.db.select().from(agents).where(eq(agents.id, client.credentials.agentId!));
    await server.ctx.bus.publish({ kind: "agent.disconnect", organizationId: agent!.organizationId, reason: "test drop" });
    await inbox.next("close");
    await inbox.next("welcome", 5000);
    expect(disconnects[0]).toBe(1000);
    expect(socket.isConnected()).toBe(true);
    await socket.stop();
  });

  test("a download interrupted midway resumes from the byte it reached", async () => {
    const { client, trigger, bytes } = await uploadedBackup(3 * 1024 * 1024);

    // The first response is cut after 1 MiB, as a dropped connection would.
    const realDownload = client.download.bind(client);
    const ranges: number[] = [];
    client.download = async (backupId, from = 0, signal) => {
      ranges.push(from);
      const response = await realDownload(backupId, from, signal);
      if (ranges.length > 1) return response;
      const reader = response.body!.getReader();
      let sent = 0;
      return new Response(
        new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (sent >= 1024 * 1024) return controller.error(new Error("connection reset"));
            const { value, done } = await reader.read();
            if (done) return controller.close();
            sent += value.byteLength;
            controller.enqueue(value);
          },
        }),
      );
    };
    const stream = openResumableDownload(client, trigger.body._id, { sleep: async () => {} });
    const received = Buffer.from(await new Response(stream).arrayBuffer());
    expect(received.equals(bytes)).toBe(true);
    expect(ranges[0]).toBe(0);
    expect(ranges[1]).toBeGreaterThanOrEqual(1024 * 1024);
  });

  test("a download that stalls midway without a reset is asked again from the byte it reached; one that always stalls fails saying so", async () => {
    const { client, trigger, bytes } = await uploadedBackup(3 * 1024 * 1024);

    // The server's answers send `stallAfter` bytes and then nothing more, the connection left
    // open: what a peer gone without a reset looks like from the agent.
    const storage = server.ctx.storage;
    const realSource = storage.httpSource.bind(storage);
    let stallsLeft = 1;
    let stallAfter = 1024 * 1024;
    const ranges: string[] = [];
    storage.httpSource = async (key, range) => {
      ranges.push(`${range?.start ?? 0}-`);
      const answer = await realSource(key, range);
      if (stallsLeft-- <= 0 || answer.kind !== "blob") return answer;
      const head = new Uint8Array(await answer.blob.slice(0, stallAfter).arrayBuffer());
      return { ...answer, blob: new ReadableStream({ start: (controller) => controller.enqueue(head) }) as unknown as Blob };
    };
    try {
      const resumed = openResumableDownload(client, trigger.body._id, { sleep: async () => {}, idleTimeoutMs: 500 });
      expect(Buffer.from(await new Response(resumed).arrayBuffer()).equals(bytes)).toBe(true);
      expect(ranges).toEqual(["0-", `${1024 * 1024}-`]);

      stallsLeft = Number.POSITIVE_INFINITY;
      stallAfter = 0;
      const stalled = openResumableDownload(client, trigger.body._id, { sleep: async () => {}, idleTimeoutMs: 300 });
      const error = await new Response(stalled).arrayBuffer().catch((failure: unknown) => failure);
      expect(error).toBeInstanceOf(DownloadStalledError);
      expect((error as Error).message).toBe("the download from the DBVault server stalled: no data for 0.3 s");
    } finally {
      storage.httpSource = realSource;
    }
  });
});

test("a socket the server closes with AGENT_REMOVED_CLOSE_CODE stops for good and says why", async () => {
  let connections = 0;
  const removedServer = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request, bunServer) {
      connections++;
      return bunServer.upgrade(request) ? undefined : new Response("no", { status: 400 });
    },
    websocket: {
      open: (ws) => ws.close(AGENT_REMOVED_CLOSE_CODE, "This agent was removed from DBVault."),
      message() {},
    },
  });
  try {
    const removed = Promise.withResolvers<string>();
    const disconnects: string[] = [];
    const socket = startAgentSocket(
      { url: () => `ws://127.0.0.1:${removedServer.port}/`, headers: () => ({}), hello: { version: "1", hostname: "h", platform: "linux-x64" } },
      { onMessage() {}, onRemoved: (reason) => removed.resolve(reason), onDisconnected: (reason) => disconnects.push(reason) },
    );
    expect(await removed.promise).toBe("This agent was removed from DBVault.");
    await socket.stop(); // already stopped: resolves at once
    expect(socket.isConnected()).toBe(false);
    expect(disconnects).toEqual([]); // no reconnection was scheduled
    expect(connections).toBe(1);
  } finally {
    removedServer.stop(true);
  }
});
