// `setup` pointed at an address that answers, but is not the DBVault server's API: the host that
// serves only the web app (a static host answers every path with its index.html), a captive
// portal, a proxy's sign-in page. Each answers 200 with HTML; the agent must say the address is
// wrong, save nothing, and never call it a bug.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMongoTestServer, type MongoTestServer } from "../../testkit/mongo-server";
import { runAgent } from "./support/run-agent.ts";

let dir: string;
let mongo: MongoTestServer;
let webAppOnly: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "dbvault-setup-wrong-server-"));
  mongo = await startMongoTestServer();
  webAppOnly = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => new Response('<!doctype html><html><body><div id="root"></div></body></html>', { headers: { "content-type": "text/html; charset=utf-8" } }),
  });
});
afterAll(async () => {
  webAppOnly.stop(true);
  await mongo.stop();
  await rm(dir, { recursive: true, force: true });
});

test("a server address that answers with a web page is named as the wrong address, and nothing is saved", async () => {
  const path = join(dir, "agent.json");
  const base = `http://127.0.0.1:${webAppOnly.port}`;
  const run = await runAgent(["setup", "--server", base, "--db", "shop", "--name", "web-page", "--config", path], {
    env: { DBVAULT_API_KEY: "dbv_never-printed-key", DBVAULT_DB_URI: `${mongo.uri.replace(/\/?$/, "/")}shop` },
  });
  expect(run.stderr).toContain(
    `dbvault-agent: registering with ${base} failed: ${base}/api/agent/register answered with a text/html page, not the DBVault server's JSON: is ${base} the address of the DBVault server?\n`,
  );
  expect(run.stderr).toContain("dbvault-agent: hint: check the server URL (the web app shows it in Settings → Security)");
  expect(run.stderr).not.toContain("unexpected error");
  expect(run.stderr).not.toContain("never-printed");
  expect(run.exitCode).toBe(1);
  expect(existsSync(path)).toBe(false);
});
