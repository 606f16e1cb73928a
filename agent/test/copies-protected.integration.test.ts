// `copies remove` asks the server first: under "Protect backups" a copy destination stays, and the
// CLI says until when (the server's 409 with its date), the config keeping the destination. Real
// server over loopback (harness), the agent CLI from source, a config connected as setup leaves it.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../../server/test/harness.ts";
import { protectBackupsOf } from "../../server/test/protect-backups.ts";
import { registerScriptedAgent } from "../../server/test/scripted-agent.ts";
import { runAgent } from "./support/run-agent.ts";

setDefaultTimeout(60_000);

let server: TestServer;
let base: string;
let dir: string;

beforeAll(async () => {
  server = await startTestServer();
  base = server.listen();
  dir = await mkdtemp(join(tmpdir(), "dbvault-copies-protected-"));
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const destination = "s3://customer-offsite/dbvault/?endpoint=https%3A%2F%2Fs3.example.com&region=eu-west-1";
const utc = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;

test("copies remove is refused under Protect backups with the date it becomes possible; without it the destination goes", async () => {
  const user = await server.registerUser();
  const agent = await registerScriptedAgent(base, user.apiKey, ["orders"]);
  const config = join(dir, "agent.json");
  const entry = { url: destination, accessKeyId: "AKIACOPY", secretAccessKey: "copy-secret" };
  const writeConfig = () =>
    writeFile(
      config,
      JSON.stringify({
        version: 1,
        databases: [],
        server: { url: base, apiKey: user.apiKey, agentId: agent.agentId, agentToken: agent.agentToken },
        copies: [entry],
      }),
      { mode: 0o600 },
    );

  await writeConfig();
  const free = await runAgent(["copies", "remove", destination, "--config", config]);
  expect(free.stderr).toBe(`dbvault-agent: removed ${destination} from ${config}; the copies already written there stay in the bucket\n`);
  expect(free.exitCode).toBe(0);

  await protectBackupsOf(server, user);

  await writeConfig();
  const week = 7 * 24 * 3_600_000;
  const before = server.ctx.now().getTime() + week;
  const refused = await runAgent(["copies", "remove", destination, "--config", config]);
  const after = server.ctx.now().getTime() + week;
  const expected = (possibleFrom: number) =>
    `dbvault-agent: copies remove: ${destination} stays: Protect backups is on for this account: a copy destination cannot be removed until the protection is off, at the earliest 7 days after Protect backups is turned off in Settings → Security (${utc(possibleFrom)} if asked now).\n` +
    "dbvault-agent: hint: the account owner can turn Protect backups off in Settings → Security (it takes effect after 7 days), then remove it\n";
  // The date is to the minute: the run may cross one.
  expect([expected(before), expected(after)]).toContain(refused.stderr);
  expect(refused.exitCode).toBe(1);
  expect(JSON.parse(await readFile(config, "utf8")).copies).toEqual([entry]);
});

test("copies remove keeps the destination when the server cannot be asked", async () => {
  const user = await server.registerUser();
  const agent = await registerScriptedAgent(base, user.apiKey, ["orders"]);
  const config = join(dir, "unreachable.json");
  const entry = { url: destination, accessKeyId: "AKIACOPY", secretAccessKey: "copy-secret" };
  // Port 9 (discard) on loopback: nothing listens there in the test environment.
  const server9 = { url: "http://127.0.0.1:9", apiKey: user.apiKey, agentId: agent.agentId, agentToken: agent.agentToken };
  await writeFile(config, JSON.stringify({ version: 1, databases: [], server: server9, copies: [entry] }), { mode: 0o600 });
  const run = await runAgent(["copies", "remove", destination, "--config", config]);
  expect(run.stderr).toStartWith(
    `dbvault-agent: copies remove: asking the DBVault server whether ${destination} may be removed failed: cannot reach the DBVault server at http://127.0.0.1:9`,
  );
  expect(run.stderr).toContain("dbvault-agent: hint: check the server URL");
  expect(run.stderr).not.toContain("copy-secret");
  expect(run.exitCode).toBe(1);
  expect(JSON.parse(await readFile(config, "utf8")).copies).toEqual([entry]);
});
