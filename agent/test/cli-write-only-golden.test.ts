// Golden CLI tests of write-only agents (issue 27 §4) and the attack they answer: whoever holds
// the database host's config (and so its credentials) cannot open a backup it made, old or new;
// only the identity file saved at the switch opens new ones, only the exported keyring old ones.
// Run as a separate process, as a user would; exact stderr and exit codes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeRecipient, recipientFingerprint } from "../src/archive/index.ts";
import { runAgent } from "./support/run-agent.ts";

const GOLDEN = new URL("../test-data/golden/", import.meta.url).pathname;
const TEST_KEY = (await readFile(join(GOLDEN, "test-key.txt"), "utf8")).trim();
const PLAINTEXT = join(GOLDEN, "plaintext.mongodump-archive");

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "dbvault-cli-write-only-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const run = (args: string[]) => runAgent(args, { env: { XDG_CONFIG_HOME: join(dir, "xdg") } });

async function writeConfig(name: string, config: object): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, JSON.stringify({ version: 1, databases: [], ...config }), { mode: 0o600 });
  await chmod(path, 0o600);
  return path;
}

describe("key mode write-only", () => {
  test("the host's config opens no backup, old or new; the identity opens new ones, the saved keyring old ones", async () => {
    const path = await writeConfig("host.json", { masterKey: TEST_KEY });
    const before = join(dir, "before.enc.dbvault");
    expect((await run(["encrypt", "--in", PLAINTEXT, "--out", before, "--config", path])).exitCode).toBe(0);

    // The switch refuses to drop the master key before the keyring is saved.
    const refused = await run(["key", "mode", "write-only", "--identity-out", join(dir, "never.txt"), "--config", path]);
    expect(refused.stderr).toBe(
      `dbvault-agent: switching to write-only removes the master key from ${path}, and backups made with it could then not be read\n` +
        "dbvault-agent: hint: save the keyring first by passing --keyring-out FILE (keep that file offline too)\n",
    );
    expect(refused.exitCode).toBe(2);

    const identity = join(dir, "identity.txt");
    const keyring = join(dir, "keyring.txt");
    const switched = await run(["key", "mode", "write-only", "--identity-out", identity, "--keyring-out", keyring, "--config", path]);
    const config = JSON.parse(await readFile(path, "utf8"));
    const fingerprint = recipientFingerprint(decodeRecipient(config.recipient)).toString("hex");
    expect(switched.stderr).toBe(
      `dbvault-agent: this agent is now write-only: new backups are sealed to the public key ${fingerprint}, and ${path} holds no key that opens them\n` +
        `dbvault-agent: the master key was removed from ${path}; backups made before open with the keyring saved in ${keyring}\n` +
        `dbvault-agent: warning: keep the identity file ${identity} offline: without it no backup made from now on can be read, by anyone; restores take it with --identity FILE\n`,
    );
    expect(switched.stdout).toBe("");
    expect(switched.exitCode).toBe(0);
    // The config holds the public key only; the secrets went to owner-only files.
    expect(Object.keys(config).sort()).toEqual(["databases", "recipient", "version"]);
    expect((await stat(identity)).mode & 0o777).toBe(0o600);
    expect((await stat(keyring)).mode & 0o777).toBe(0o600);
    expect(await readFile(keyring, "utf8")).toContain(TEST_KEY);

    const after = join(dir, "after.enc.dbvault");
    const sealed = await run(["encrypt", "--in", PLAINTEXT, "--out", after, "--config", path]);
    expect(sealed.exitCode).toBe(0);
    expect(sealed.stderr).toContain(`key id ${fingerprint}`);

    // The attacker holds the host's config: every command that opens a backup refuses, old or new.
    const writeOnly =
      `dbvault-agent: this agent is write-only: ${path} holds only the public key its backups are sealed to, which cannot open them\n` +
      "dbvault-agent: hint: pass the identity file saved when write-only mode was turned on: --identity FILE (backups made before need the keyring exported then: key import)\n";
    for (const file of [after, before]) {
      for (const args of [
        ["verify", "--in", file],
        ["decrypt", "--in", file, "--out", join(dir, "stolen.archive")],
      ]) {
        const attempt = await run([...args, "--config", path]);
        expect(attempt.stderr).toBe(writeOnly);
        expect(attempt.exitCode).toBe(4);
      }
    }
    const restore = await run(["restore", "--in", after, "--uri", "mongodb://127.0.0.1:1/x", "--config", path]);
    expect(restore.stderr).toBe(writeOnly);

    // With the identity, the new backup opens, byte for byte; the old one needs the keyring.
    const out = join(dir, "opened.archive");
    const opened = await run(["decrypt", "--in", after, "--out", out, "--identity", identity, "--config", path]);
    expect(opened.exitCode).toBe(0);
    expect((await readFile(out)).equals(await readFile(PLAINTEXT))).toBe(true);
    expect((await run(["verify", "--in", after, "--identity", identity, "--config", path])).exitCode).toBe(0);
    const old = await run(["verify", "--in", before, "--identity", identity, "--config", path]);
    expect(old.stderr).toMatch(/^dbvault-agent: wrong key: this backup was encrypted with the key whose id is [0-9a-f]{32}/);
    const restored = await writeConfig("restored.json", {});
    expect((await run(["key", "import", "--key-file", keyring, "--config", restored])).exitCode).toBe(0);
    expect((await run(["verify", "--in", before, "--config", restored])).exitCode).toBe(0);
  });

  test("a backup sealed to a recipient, given only a master key, asks for the identity", async () => {
    const path = await writeConfig("other.json", { masterKey: TEST_KEY });
    const attempt = await run(["verify", "--in", join(GOLDEN, "v2-x25519-zstd.enc.dbvault"), "--config", path]);
    expect(attempt.stderr).toBe(
      "dbvault-agent: this backup was sealed by a write-only agent to the public key whose fingerprint is c0c49c53e78ccf8ce9b8fdb9296fc867; only its private key (the identity file saved when write-only mode was turned on) can open it\n" +
        "dbvault-agent: hint: pass the identity file saved when write-only mode was turned on: --identity FILE\n",
    );
    const opened = await run(["verify", "--in", join(GOLDEN, "v2-x25519-zstd.enc.dbvault"), "--identity", join(GOLDEN, "test-identity.txt"), "--config", path]);
    expect(opened.exitCode).toBe(0);
  });

  test("setup --key-mode write-only refuses to drop a master key not saved first, before contacting the server", async () => {
    const path = await writeConfig("setup-host.json", { masterKey: TEST_KEY });
    const refused = await run(["setup", "--key-mode", "write-only", "--server", "http://127.0.0.1:9", "--config", path]);
    expect(refused.stderr).toBe(
      `dbvault-agent: switching to write-only removes the master key from ${path}, and backups made with it could then not be read\n` +
        "dbvault-agent: hint: save the keyring first by passing --keyring-out FILE (keep that file offline too)\n",
    );
    expect(refused.exitCode).toBe(2);
    expect(JSON.parse(await readFile(path, "utf8")).masterKey).toBe(TEST_KEY);
    const unknown = await run(["setup", "--key-mode", "public", "--config", path]);
    expect(unknown.stderr).toStartWith('dbvault-agent: setup: unknown --key-mode "public" (expected master-key or write-only)\n');
    expect(unknown.exitCode).toBe(2);
  });
});

describe("restore agents (setup --role restore)", () => {
  test("setup refuses a role without its identity, an identity without the role, and a key mode on a restore agent, before contacting the server", async () => {
    const path = join(dir, "never-restore.json");
    const refusals: [string[], string][] = [
      [
        ["--role", "bogus"],
        'dbvault-agent: setup: unknown --role "bogus" (expected backup or restore)\ndbvault-agent: hint: run dbvault-agent help for usage\n',
      ],
      [
        ["--role", "restore"],
        "dbvault-agent: setup: a restore agent needs the identity write-only backups are sealed to: --identity FILE\n" +
          "dbvault-agent: hint: give the file dbvault-agent key mode write-only (or setup --key-mode write-only --identity-out) wrote\n",
      ],
      [
        ["--identity", join(GOLDEN, "test-identity.txt")],
        "dbvault-agent: setup: --identity goes with --role restore\n" +
          "dbvault-agent: hint: a backup agent keeps no identity: restores on it take --identity FILE on the command line\n",
      ],
      [
        ["--role", "restore", "--key-mode", "write-only"],
        "dbvault-agent: setup: --key-mode is for backup agents; a restore agent makes no backups\n" +
          "dbvault-agent: hint: drop --key-mode, or set up a backup agent without --role restore\n",
      ],
    ];
    for (const [args, stderr] of refusals) {
      const refused = await run(["setup", ...args, "--server", "http://127.0.0.1:9", "--config", path]);
      expect(refused.stderr).toBe(stderr);
      expect(refused.exitCode).toBe(2);
    }
    expect(await stat(path).catch(() => null)).toBeNull();
  });

  test("a restore agent's config opens what is sealed to its identity, without --identity", async () => {
    const identity = (await readFile(join(GOLDEN, "test-identity.txt"), "utf8")).trim();
    const path = await writeConfig("restore-agent.json", { role: "restore", identities: [identity] });
    const verified = await run(["verify", "--in", join(GOLDEN, "v2-x25519-zstd.enc.dbvault"), "--config", path]);
    expect(verified.stdout).toContain("ok: 44 documents in 3 namespaces; every chunk and checksum verified");
    expect(verified.exitCode).toBe(0);
    // A master-key backup it has no key for names the key it needs.
    const other = await run(["verify", "--in", join(GOLDEN, "v2-zstd.enc.dbvault"), "--config", path]);
    expect(other.exitCode).not.toBe(0);
  });

  test("a restore agent whose config lost its identities says so, not that a master key is missing", async () => {
    const server = { url: "http://127.0.0.1:9", apiKey: "dbv_test", agentId: "agent-1", agentToken: "token" };
    const path = await writeConfig("restore-agent-no-identity.json", { role: "restore", identities: [], server });
    const expected =
      `dbvault-agent: ${path} is a restore agent's config but holds no identity, so this agent can open no backup\n` +
      `dbvault-agent: hint: give it the identity file key mode write-only wrote: dbvault-agent setup --role restore --identity FILE --config ${path}\n`;
    for (const args of [["run"], ["verify", "--in", join(GOLDEN, "v2-x25519-zstd.enc.dbvault")]]) {
      const refused = await run([...args, "--config", path]);
      expect(refused.stderr).toBe(expected);
      expect(refused.exitCode).toBe(4);
    }
  });
});
