// Interactive `dbvault-agent setup`, answered the way a person at a terminal would (a scripted
// terminal on the command's streams, in process): a URL without a scheme or with a wrong port is
// asked again with a plain explanation, a wrong API key is caught right after it is typed, and
// no runtime hint (Bun's `verbose: true`) ever shows.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { startTestServer, type TestServer } from "../../server/test/harness";
import { startMongoTestServer, type MongoTestServer } from "../../testkit/mongo-server";
import { waitUntil } from "../../testkit/wait-until";
import { runCli } from "../src/commands/run-cli.ts";

let server: TestServer;
let base: string;
let mongo: MongoTestServer;
let dir: string;

beforeAll(async () => {
  server = await startTestServer();
  base = server.listen();
  mongo = await startMongoTestServer();
  dir = await mkdtemp(join(tmpdir(), "dbvault-setup-tty-"));
});
afterAll(async () => {
  await server.close();
  await mongo.stop();
  await rm(dir, { recursive: true, force: true });
});

/** A terminal: each question it sees on stderr is answered when the test says what to type. */
function scriptedTerminal() {
  const stdin = new PassThrough();
  let output = "";
  const answered = new Map<string, number>();
  const stderr = new Writable({
    write(chunk, _encoding, callback) {
      output += String(chunk);
      callback();
    },
  });
  return {
    stdin,
    stderr,
    output: () => output,
    /** Waits until `question` has been asked once more than it was answered, then types `answer` and Enter. */
    async answer(question: string, answer: string) {
      const times = answered.get(question) ?? 0;
      await waitUntil(() => output.split(question).length - 1 > times, { message: `the question "${question}" (asked ${times + 1} times)` });
      answered.set(question, times + 1);
      stdin.write(`${answer}\n`);
    },
  };
}

test("asks again after a URL without a scheme or a wrong port, and after a wrong API key", async () => {
  const user = await server.registerUser({ name: "Terminal User" });
  const terminal = scriptedTerminal();
  const configPath = join(dir, "agent.json");
  const stdout = new PassThrough();
  const finished = runCli(["setup", "--config", configPath, "--name", "tty-agent"], {
    stdin: terminal.stdin,
    stdout,
    stderr: terminal.stderr,
    stdinIsTTY: true,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    env: { HOME: dir, PATH: "/usr/bin:/bin" },
    signal: new AbortController().signal,
  });
  const host = new URL(base).host;
  await terminal.answer("DBVault server URL", host);
  await terminal.answer("DBVault server URL", "http://127.0.0.1:1");
  await terminal.answer("DBVault server URL", base);
  await terminal.answer("API key (", "dbv_not-the-key");
  await terminal.answer("API key (", user.apiKey);
  await terminal.answer("database display name", "shop");
  await terminal.answer("connection string of", `${mongo.uri.replace(/\/?$/, "/")}shop`);
  await terminal.answer("add another database", "n");
  await terminal.answer("install the agent as a service", "n");
  expect(await finished).toBe(0);

  const said = terminal.output();
  expect(said).toContain(`"${host}" has no http:// or https://`);
  expect(said).toContain(`hint: did you mean https://${host}?`);
  expect(said).toContain("nothing is listening at 127.0.0.1:1 (connection refused)");
  expect(said).toContain("the server does not know this API key");
  expect(said).toContain("API key accepted (account: Terminal User)");
  expect(said).toContain("start the agent as a service with: dbvault-agent service install");
  expect(said).not.toMatch(/verbose|Is the computer able/);
  expect(said).not.toContain(user.apiKey);
  expect(JSON.parse(await readFile(configPath, "utf8")).server.url).toBe(base);
});
