// The server's own log (a real server process at LOG_LEVEL=debug, mail over real SMTP) through
// the flows that handle secrets: registration, failed and good sign-ins, a password reset and
// change, agent registration, an API-key regeneration, a webhook (with a token in its URL) whose
// deliveries fail and succeed, malformed requests and a sign-out. Then the
// whole log is searched for every secret the flows used or produced, and for the shapes of those
// it cannot know (argon2 hashes, JWTs, keys, 64-hex digests such as key HMACs and token hashes,
// SQL parameters).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentApi } from "@protocol/agent-protocol";
import { startSmtpSink, type SmtpSink } from "../../testkit/smtp-sink-client";
import { waitUntil } from "../../testkit/wait-until";
import { startWebhookReceiver, type WebhookReceiver } from "../../testkit/webhook-receiver";

const root = join(import.meta.dir, "..", "..");
let smtp: SmtpSink;
let receiver: WebhookReceiver;
let dataDir: string;
let child: ReturnType<typeof Bun.spawn>;
let base: string;
let log = "";

async function collect(stream: ReadableStream<Uint8Array>) {
  const decoder = new TextDecoder();
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) log += decoder.decode(chunk);
}

beforeAll(async () => {
  smtp = await startSmtpSink();
  receiver = startWebhookReceiver();
  dataDir = mkdtempSync(join(tmpdir(), "dbvault-log-secrets-"));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  base = `http://127.0.0.1:${port}`;
  child = Bun.spawn([process.execPath, join(root, "server/src/main.ts")], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "debug",
      SMTP_URL: smtp.smtpUrl,
      PUBLIC_URL: base,
      WEBHOOK_ALLOW_PRIVATE: "true",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  void collect(child.stdout as ReadableStream<Uint8Array>);
  void collect(child.stderr as ReadableStream<Uint8Array>);
  await waitUntil(
    () =>
      fetch(`${base}/api/agents/server-status`).then(
        (res) => res.ok,
        () => false,
      ),
    { timeout: 120_000, interval: 100, message: "the server to answer" },
  );
});

afterAll(() => {
  child?.kill();
  smtp?.stop();
  receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function call(method: string, path: string, options: { body?: unknown; raw?: string; token?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { "content-type": "application/json", ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

test("no password, token, key, hash or SQL parameter reaches the log", async () => {
  const email = `secrets-${Date.now()}@example.com`;
  const passwords = ["first-Secret-1", "second-Secret-2", "third-Secret-3"];
  const secrets: string[] = [...passwords];

  const registered = await call("POST", "/api/auth/register", { body: { name: "Secretive", email, password: passwords[0] } });
  expect(registered.status).toBe(201);
  secrets.push(registered.body.token, registered.body.user.apiKey);
  expect((await call("POST", "/api/auth/login", { body: { email, password: "wrong-Secret-0" } })).status).toBe(401);
  secrets.push("wrong-Secret-0");

  expect((await call("POST", "/api/auth/forgot-password", { body: { email } })).status).toBe(200);
  const mail = await smtp.waitFor(email, /Reset your DBVault password/);
  const resetToken = mail.text.match(/reset-password\/([A-Za-z0-9_-]+)/)![1]!;
  secrets.push(resetToken);
  expect((await call("POST", `/api/auth/reset-password/${resetToken}`, { body: { password: passwords[1] } })).status).toBe(200);

  const signedIn = await call("POST", "/api/auth/login", { body: { email, password: passwords[1] } });
  expect(signedIn.status).toBe(200);
  secrets.push(signedIn.body.token);
  const changed = await call("PUT", "/api/user/password", { token: signedIn.body.token, body: { currentPassword: passwords[1], newPassword: passwords[2] } });
  expect(changed.status).toBe(200);
  const token = changed.body.token as string;
  // The change replaced the API key too (rotateApiKey defaults to true).
  const apiKey = changed.body.apiKey as string;
  secrets.push(token, apiKey);

  const agent = await call("POST", agentApi.register, {
    headers: { authorization: `Bearer ${apiKey}` },
    body: { name: "secret-agent", hostname: "db.internal", platform: "linux-x64", version: "1.0.0", databases: ["orders"] },
  });
  expect(agent.status).toBe(201);
  secrets.push(agent.body.agentToken);
  const regenerated = await call("POST", "/api/settings/regenerate-api-key", { token, body: { password: passwords[2] } });
  expect(regenerated.status).toBe(200);
  secrets.push(regenerated.body.apiKey);

  // A webhook whose URL carries a token: a failed and a good delivery, and a refused address.
  const hookToken = "hook-url-token-Secret-9";
  const webhook = await call("POST", "/api/settings/webhooks", { token, body: { url: `${receiver.url}/hook?token=${hookToken}`, events: ["backup.failed"] } });
  expect(webhook.status).toBe(201);
  secrets.push(webhook.body.secret, hookToken);
  receiver.answers.push(500);
  expect((await call("POST", `/api/settings/webhooks/${webhook.body.id}/test`, { token })).body.status).toBe("failed");
  expect((await call("POST", `/api/settings/webhooks/${webhook.body.id}/test`, { token })).body.status).toBe("delivered");
  secrets.push(...receiver.received.map((delivery) => delivery.signature!.slice("sha256=".length)));
  expect(
    (await call("POST", "/api/settings/webhooks", { token, body: { url: `ftp://x.example.com/?token=${hookToken}`, events: ["backup.failed"] } })).status,
  ).toBe(400);

  // Malformed and refused requests: their errors are logged too.
  expect((await call("POST", "/api/auth/register", { raw: '{"name":"a\\u0000b","email":"x@example.com","password":"secret-nul-1"}' })).status).toBe(400);
  expect((await call("POST", "/api/auth/login", { raw: "{" })).status).toBe(400);
  expect((await call("GET", "/api/user/profile", { token: `${token}x` })).status).toBe(401);
  expect((await call("POST", "/api/auth/logout", { token })).status).toBe(200);

  child.kill("SIGTERM");
  await child.exited;
  // The log did record the flows (so an empty log cannot pass).
  for (const line of ["user registered", "agent registered", "webhook created", "webhook delivery failed"]) expect(log).toContain(line);

  const found = secrets.filter((secret) => log.includes(secret));
  expect(found.map((secret) => `${secret.slice(0, 6)}…`)).toEqual([]);
  const shapes: [string, RegExp][] = [
    ["an argon2 hash", /\$argon2/],
    ["a JWT", /eyJ[A-Za-z0-9_-]{10,}\.eyJ/],
    ["an API key", /dbv_[A-Za-z0-9_-]{20,}/],
    ["an agent token", /dbvt_[A-Za-z0-9_-]{20,}/],
    ["a webhook secret", /whsec_[A-Za-z0-9_-]{20,}/],
    ["a 64-hex digest (key HMAC, token hash)", /\b[0-9a-f]{64}\b/],
    ["SQL parameters", /params:|Failed query/],
  ];
  expect(shapes.filter(([, pattern]) => pattern.test(log)).map(([name]) => name)).toEqual([]);
}, 180_000);
