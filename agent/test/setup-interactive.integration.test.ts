// Interactive `dbvault-agent setup`, answered the way a person at a terminal would (a scripted
// terminal on the command's streams, in process): a URL without a scheme or with a wrong port is
// asked again with a plain explanation, a wrong API key is caught right after it is typed, a
// wrong connection string right after it is typed (and only it is asked again), `setup --force`
// keeps each database on Enter, and no runtime hint (Bun's `verbose: true`) ever shows.
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
let guarded: MongoTestServer;
let dir: string;

beforeAll(async () => {
  server = await startTestServer();
  base = server.listen();
  mongo = await startMongoTestServer();
  guarded = await startMongoTestServer({ users: [{ username: "agent", password: "s3cret" }] });
  dir = await mkdtemp(join(tmpdir(), "dbvault-setup-tty-"));
}, 60_000); // a server and two MongoDB test servers start; slow on a busy machine
afterAll(async () => {
  await server.close();
  await mongo.stop();
  await guarded.stop();
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
    /** Waits until `question` has been asked `times` times (or once more than answered). */
    async waitForQuestion(question: string, times = (answered.get(question) ?? 0) + 1) {
      await waitUntil(() => output.split(question).length - 1 >= times, { message: `the question "${question}" (asked ${times} times)`, timeout: 30_000 });
    },
    /** Waits until `question` has been asked once more than it was answered, then types `answer` and Enter. */
    async answer(question: string, answer: string) {
      const times = answered.get(question) ?? 0;
      await waitUntil(() => output.split(question).length - 1 > times, { message: `the question "${question}" (asked ${times + 1} times)` });
      answered.set(question, times + 1);
      stdin.write(`${answer}\n`);
    },
  };
}

/** Runs setup in process on a scripted terminal (or, with stdinIsTTY false, as a script would); answers the exit code. */
function startSetup(
  args: string[],
  terminal: ReturnType<typeof scriptedTerminal>,
  as: { stdinIsTTY?: boolean; env?: Record<string, string> } = {},
): Promise<number> {
  return startCommand(["setup", ...args], terminal, as);
}

function startCommand(
  argv: string[],
  terminal: ReturnType<typeof scriptedTerminal>,
  as: { stdinIsTTY?: boolean; env?: Record<string, string> } = {},
): Promise<number> {
  return runCli(argv, {
    stdin: terminal.stdin,
    stdout: new PassThrough(),
    stderr: terminal.stderr,
    stdinIsTTY: as.stdinIsTTY ?? true,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    env: { HOME: dir, PATH: "/usr/bin:/bin", ...as.env },
    signal: new AbortController().signal,
  });
}

test("asks again after a URL without a scheme or a wrong port, and after a wrong API key", async () => {
  const user = await server.registerUser({ name: "Terminal User" });
  const terminal = scriptedTerminal();
  const configPath = join(dir, "agent.json");
  const finished = startSetup(["--config", configPath, "--name", "tty-agent"], terminal);
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
  expect(said).toContain(
    "the server does not know this API key\ndbvault-agent: hint: copy it again from Settings → Security in the web app (it changes when regenerated) and paste it below\n",
  );
  expect(said).not.toContain("then run dbvault-agent setup"); // setup is what is running
  expect(said).toContain("API key accepted (account: Terminal User)");
  expect(said).toContain("start the agent as a service with: dbvault-agent service install");
  expect(said).not.toMatch(/verbose|Is the computer able/);
  expect(said).not.toContain(user.apiKey);
  expect(JSON.parse(await readFile(configPath, "utf8")).server.url).toBe(base);
});

test("a wrong connection string is explained and asked again at once; the API key and the name are kept", async () => {
  const user = await server.registerUser({ name: "Typo User" });
  const terminal = scriptedTerminal();
  const configPath = join(dir, "typos.json");
  const finished = startSetup(["--config", configPath, "--name", "typo-agent"], terminal);
  await terminal.answer("DBVault server URL", base);
  await terminal.answer("API key (", user.apiKey);
  await terminal.answer("database display name", "shop");
  const question = 'connection string of "shop"';
  await terminal.answer(question, `localhost:${guarded.port}`);
  await terminal.waitForQuestion(question, 2);
  const typed = performance.now();
  await terminal.answer(question, "mongodb://127.0.0.1:1/shop");
  await terminal.waitForQuestion(question, 3);
  const refusedAfter = performance.now() - typed;
  await terminal.answer(question, `mongodb://agent:wrong@127.0.0.1:${guarded.port}/shop?authSource=admin`);
  await terminal.answer(question, `mongodb://agent:s3cret@127.0.0.1:${guarded.port}/shop?authSource=admin`);
  await terminal.answer("add another database", "n");
  await terminal.answer("install the agent as a service", "n");
  expect(await finished).toBe(0);

  const said = terminal.output();
  expect(said).toContain('cannot use the database "shop": this is not a MongoDB connection string: it must start with mongodb:// or mongodb+srv://\n');
  expect(said).toContain(`hint: did you mean mongodb://localhost:${guarded.port}?\n`);
  expect(said).toContain('cannot use the database "shop": nothing is listening at 127.0.0.1:1 (connection refused)\n');
  expect(refusedAfter).toBeLessThan(10_000); // the driver's own 15 s would be a long wait at a prompt
  expect(said).toContain(`cannot use the database "shop": 127.0.0.1:${guarded.port} refused the user name or password (authentication failed)\n`);
  expect(said).toContain(`connected to "shop" at 127.0.0.1:${guarded.port}`);
  expect(said).not.toContain("nothing was saved");
  expect(said).not.toContain("help for usage");
  expect(said).not.toContain("s3cret");
  // Each was asked once: nothing typed before the connection string was asked again.
  expect(said.split("API key (").length - 1).toBe(1);
  expect(said.split("database display name").length - 1).toBe(1);
  expect(said).toContain("backups run only while dbvault-agent run is running: as a service, systemd starts it at boot and again if it stops");
  const saved = JSON.parse(await readFile(configPath, "utf8"));
  expect(saved.databases.map((entry: { name: string }) => entry.name)).toEqual(["shop"]);

  // setup --force on the same config: Enter keeps the database as it is.
  const again = scriptedTerminal();
  const forced = startSetup(["--config", configPath, "--name", "typo-agent", "--force"], again);
  await again.answer("DBVault server URL", base);
  await again.answer("API key (", user.apiKey);
  await again.answer('connection string of "shop" (Enter keeps', "");
  await again.answer("add another database", "n");
  await again.answer("install the agent as a service", "n");
  expect(await forced).toBe(0);
  expect(again.output()).toContain('this config already has "shop": press Enter to keep each as it is');
  expect(again.output()).not.toContain("is not a valid database name");
  expect(JSON.parse(await readFile(configPath, "utf8")).databases).toEqual(saved.databases);
}, 60_000);

test("setup --server with a wrong address says so before the API key is asked, and saves nothing", async () => {
  const terminal = scriptedTerminal();
  const configPath = join(dir, "wrong-server.json");
  const exitCode = await startSetup(["--config", configPath, "--server", "http://127.0.0.1:1"], terminal);
  expect(exitCode).toBe(1);
  expect(terminal.output()).toContain(
    "checking the DBVault server at http://127.0.0.1:1 failed: cannot reach the DBVault server at http://127.0.0.1:1: nothing is listening at 127.0.0.1:1 (connection refused)",
  );
  expect(terminal.output()).not.toContain("API key (");
  expect(await Bun.file(configPath).exists()).toBe(false);
});

test("a refused API key in a script points at setup --force, which works whether or not the config is set up", async () => {
  const stderr = scriptedTerminal();
  const exitCode = await startSetup(["--server", base, "--db", "shop", "--config", join(dir, "script.json")], stderr, {
    stdinIsTTY: false,
    env: { DBVAULT_API_KEY: "dbv_not-the-key", DBVAULT_DB_URI: `${mongo.uri.replace(/\/?$/, "/")}shop` },
  });
  expect(exitCode).toBe(1);
  expect(stderr.output()).toContain(
    "hint: copy the API key again from Settings → Security in the web app (it changes when regenerated), then connect again with: dbvault-agent setup --force (the master key and databases are kept)\n",
  );
});

test("db add on a terminal with no server: a wrong connection string is asked again, the database is saved", async () => {
  const terminal = scriptedTerminal();
  const configPath = join(dir, "offline.json");
  const finished = startCommand(["db", "add", "--config", configPath], terminal);
  await terminal.answer("database display name", "crm");
  await terminal.answer('connection string of "crm"', `127.0.0.1:${mongo.port}/crm`);
  await terminal.answer('connection string of "crm"', `mongodb://127.0.0.1:${mongo.port}/crm`);
  expect(await finished).toBe(0);
  expect(terminal.output()).toContain(`hint: did you mean mongodb://127.0.0.1:${mongo.port}/crm?\n`);
  expect(terminal.output()).toContain('this config is connected to no DBVault server, so "crm" was not registered');
  expect(JSON.parse(await readFile(configPath, "utf8")).databases).toEqual([{ name: "crm", uri: `mongodb://127.0.0.1:${mongo.port}/crm` }]);
});
