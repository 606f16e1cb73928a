// Golden CLI tests: arguments in, exact stdout, stderr and exit code out (age's
// cmd/age/testdata style), run as a separate process like a user would.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeMasterKey, generateMasterKey } from "../src/archive/index.ts";
import { HELP_TEXT } from "../src/commands/help.ts";
import { DECRYPT_HELP } from "../src/commands/help-topics.ts";
import { runAgent } from "./support/run-agent.ts";

const GOLDEN = new URL("../test-data/golden/", import.meta.url).pathname;
const TEST_KEY = (await readFile(join(GOLDEN, "test-key.txt"), "utf8")).trim();
const TEST_KEY_ID = "32c6aee69f6033de3a2444d67e6f022c";
const HINT_USAGE = "dbvault-agent: hint: run dbvault-agent help for usage\n";

let dir: string;
let goldenConfig: string;
let otherConfig: string;
let otherKeyId: string;

async function writeConfig(name: string, config: object, mode = 0o600): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, JSON.stringify(config), { mode });
  await chmod(path, mode);
  return path;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "dbvault-cli-golden-"));
  goldenConfig = await writeConfig("golden.json", { version: 1, masterKey: TEST_KEY, databases: [] });
  const other = generateMasterKey();
  otherKeyId = (await import("../src/archive/index.ts")).deriveKeyId(other);
  otherConfig = await writeConfig("other.json", {
    version: 1,
    masterKey: encodeMasterKey(other),
    databases: [{ name: "shop", uri: "mongodb://agent:hunter2-secret@127.0.0.1:1/shop?serverSelectionTimeoutMS=300" }],
  });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const env = () => ({ XDG_CONFIG_HOME: join(dir, "xdg") });

async function expectRun(args: string[], expected: { stdout?: string; stderr: string | RegExp; exitCode: number }, stdin?: Uint8Array) {
  const run = await runAgent(args, { env: env(), stdin });
  if (expected.stderr instanceof RegExp) expect(run.stderr).toMatch(expected.stderr);
  else expect(run.stderr).toBe(expected.stderr);
  expect(run.stdout).toBe(expected.stdout ?? "");
  expect(run.exitCode).toBe(expected.exitCode);
  return run;
}

describe("usage errors exit 2 with a hint", () => {
  test("no command prints the help on stderr", () => expectRun([], { stderr: HELP_TEXT, exitCode: 2 }));
  test("help prints it on stdout", () => expectRun(["help"], { stdout: HELP_TEXT, stderr: "", exitCode: 0 }));
  test("an unknown command", () => expectRun(["frobnicate"], { stderr: `dbvault-agent: unknown command "frobnicate"\n${HINT_USAGE}`, exitCode: 2 }));
  test("a missing required option", () =>
    expectRun(["dump", "--db", "shop"], { stderr: `dbvault-agent: dump: missing --out FILE\n${HINT_USAGE}`, exitCode: 2 }));
  test("an unknown option", () =>
    expectRun(["verify", "--in", "x", "--verbose"], { stderr: `dbvault-agent: verify: unknown option --verbose\n${HINT_USAGE}`, exitCode: 2 }));
  test("an option without its value", () =>
    expectRun(["decrypt", "--in"], { stderr: `dbvault-agent: decrypt: --in needs a value\n${HINT_USAGE}`, exitCode: 2 }));
  test("a bad compression", () =>
    expectRun(["encrypt", "--in", "a", "--out", "b", "--compression", "lz4"], {
      stderr: `dbvault-agent: encrypt: --compression must be one of zstd, gzip, none\n${HINT_USAGE}`,
      exitCode: 2,
    }));
  test("key without an action", () =>
    expectRun(["key"], { stderr: `dbvault-agent: key: missing action (generate, export, import, rotate, rewrap or mode)\n${HINT_USAGE}`, exitCode: 2 }));
});

describe("config problems exit 4", () => {
  test("no config file at the default place: decrypt, verify and restore point at key import, never key generate", async () => {
    const path = join(dir, "xdg", "dbvault", "agent.json");
    const hint = `dbvault-agent: hint: put the master key the backups were made with into it: dbvault-agent key import --config ${path} (a new key from key generate cannot open them)\n`;
    const backup = join(GOLDEN, "v1-zstd.enc.dbvault");
    for (const args of [
      ["verify", "--in", backup],
      ["decrypt", "--in", backup, "--out", join(dir, "never.archive")],
      ["restore", "--uri", "mongodb://127.0.0.1:1/shop", "--in", backup],
    ]) {
      await expectRun(args, { stderr: `dbvault-agent: no config file at ${path}\n${hint}`, exitCode: 4 });
    }
    expect(existsSync(join(dir, "never.archive"))).toBe(false);
  });
  test("a config without a key (databases added first) points at key import too", async () => {
    const path = await writeConfig("no-key.json", { version: 1, databases: [] });
    await expectRun(["verify", "--in", join(GOLDEN, "v1-zstd.enc.dbvault"), "--config", path], {
      stderr:
        `dbvault-agent: the config file ${path} holds no master key\n` +
        `dbvault-agent: hint: put the master key the backups were made with into it: dbvault-agent key import --config ${path} (a new key from key generate cannot open them)\n`,
      exitCode: 4,
    });
  });
  test("a config others can read", async () => {
    const path = await writeConfig("open.json", { version: 1, masterKey: TEST_KEY, databases: [] }, 0o644);
    return expectRun(["key", "export", "--config", path], {
      stderr: `dbvault-agent: the config file ${path} can be read by other users (mode 0644)\ndbvault-agent: hint: it holds the master key and connection strings: run chmod 600 ${path}\n`,
      exitCode: 4,
    });
  });
  test("an invalid config lists every problem and never its connection strings", async () => {
    const path = await writeConfig("bad.json", {
      version: 2,
      databases: [
        { name: "", uri: "mongodb://u:do-not-print@h/x" },
        { name: "ok", uri: "postgres://u:do-not-print@h" },
      ],
      compression: "lz4",
    });
    const run = await expectRun(["dump", "--db", "ok", "--out", join(dir, "x"), "--config", path], {
      stderr:
        `dbvault-agent: the config file ${path} is invalid: version must be 1; ` +
        `databases[0].name must be 1 to 64 letters, digits, ".", "_", "-" or spaces; ` +
        `databases[1].uri must be a mongodb:// or mongodb+srv:// connection string; compression must be one of zstd, gzip, none\n`,
      exitCode: 4,
    });
    expect(run.stderr).not.toContain("do-not-print");
  });
  test("an unknown database name lists the configured ones", () =>
    expectRun(["dump", "--db", "nope", "--out", join(dir, "x.enc.dbvault"), "--config", otherConfig], {
      stderr: `dbvault-agent: no database named "nope" in ${otherConfig}\ndbvault-agent: hint: the config file has: shop\n`,
      exitCode: 4,
    }));
});

describe("keys", () => {
  test("key generate creates a 0600 config in a 0700 directory, refuses to replace the key, key export prints it", async () => {
    const path = join(dir, "fresh", "nested", "agent.json");
    const created = await expectRun(["key", "generate", "--config", path], {
      stderr:
        /^dbvault-agent: created a new master key \(key id [0-9a-f]{32}\) in .*agent\.json\ndbvault-agent: warning: keep a copy of the key somewhere safe \(dbvault-agent key export prints it\): without it no backup can be restored\n$/,
      exitCode: 0,
    });
    const keyId = /key id ([0-9a-f]{32})/.exec(created.stderr)![1];
    const { stat } = await import("node:fs/promises");
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, "fresh", "nested"))).mode & 0o777).toBe(0o700);
    await expectRun(["key", "generate", "--config", path], {
      stderr:
        `dbvault-agent: the config file ${path} already holds a master key (key id ${keyId})\n` +
        "dbvault-agent: hint: backups made with that key can only be restored with it: save it first (dbvault-agent key export), then pass --force to replace it\n",
      exitCode: 4,
    });
    const exported = await runAgent(["key", "export", "--config", path]);
    expect(exported.stdout).toMatch(/^dbvk1_[A-Za-z0-9_-]{48}\n$/);
    expect(JSON.parse(await readFile(path, "utf8")).masterKey).toBe(exported.stdout.trim());
    await expectRun(["key", "generate", "--force", "--config", path], { stderr: /created a new master key/, exitCode: 0 });
    expect((await runAgent(["key", "export", "--config", path])).stdout).not.toBe(exported.stdout);
  });
});

describe("verify and decrypt", () => {
  test("verify --json prints exactly the namespaces and their document counts", () =>
    expectRun(["verify", "--in", join(GOLDEN, "v1-zstd.enc.dbvault"), "--json", "--config", goldenConfig], {
      stdout: '{"namespaces":{"admin.system.version":1,"test.foo":25,".oplog":18}}\n',
      stderr: "",
      exitCode: 0,
    }));
  test("verify prints the header and every namespace", () =>
    expectRun(["verify", "--in", join(GOLDEN, "v1-gzip.enc.dbvault"), "--config", goldenConfig], {
      stdout: [
        `file:         ${join(GOLDEN, "v1-gzip.enc.dbvault")} (1.6 KB)`,
        "created at:   2026-11-23T12:00:00.000Z",
        "compression:  gzip",
        `key id:       ${TEST_KEY_ID}`,
        "archive:      written by r4.1.3-4-gd9eefb54 from mongodb 4.0.2",
        "namespaces:",
        "  admin.system.version             1 document",
        "  test.foo                        25 documents",
        "  .oplog                          18 documents",
        "ok: 44 documents in 3 namespaces; every chunk and checksum verified",
        "",
      ].join("\n"),
      stderr: "",
      exitCode: 0,
    }));
  test("a wrong key exits 3 naming both key ids and the way to get the right key", () =>
    expectRun(["verify", "--in", join(GOLDEN, "v1-zstd.enc.dbvault"), "--config", otherConfig], {
      stderr:
        `dbvault-agent: wrong key: this backup was encrypted with the key whose id is ${TEST_KEY_ID}, but the key in ${otherConfig} has id ${otherKeyId}\n` +
        "dbvault-agent: hint: run dbvault-agent key export on the machine that made the backup, and use that key\n",
      exitCode: 3,
    }));
  test("decrypt to stdout gives the mongodump archive byte for byte", async () => {
    const run = await runAgent(["decrypt", "--in", join(GOLDEN, "v1-none.enc.dbvault"), "--out", "-", "--config", goldenConfig]);
    expect(run.exitCode).toBe(0);
    expect(run.stdoutBytes.equals(await readFile(join(GOLDEN, "plaintext.mongodump-archive")))).toBe(true);
  });
  test("decrypt of a backup sealed from a mongodump --gzip archive says it gives the archive uncompressed", async () => {
    const gzipped = new URL("../test-data/mongodump-archives/modern-5k.archive.gz", import.meta.url).pathname;
    const sealed = join(dir, "from-gzip.enc.dbvault");
    await expectRun(["encrypt", "--in", gzipped, "--out", sealed, "--config", goldenConfig], {
      stderr: /^dbvault-agent: the input is gzip-compressed \(mongodump --gzip\); it is sealed decompressed\ndbvault-agent: sealed 5,?001 documents /,
      exitCode: 0,
    });
    const out = join(dir, "from-gzip.archive");
    await expectRun(["decrypt", "--in", sealed, "--out", out, "--config", goldenConfig], {
      stderr: new RegExp(
        `^dbvault-agent: decrypted ${sealed} \\(made \\S+\\) into ${out}: \\d+(\\.\\d)? [KM]B of uncompressed mongodump archive \\(encrypt seals mongodump --gzip archives decompressed: restore it without --gzip\\)\n` +
          `dbvault-agent: restore it with: mongorestore --archive=${out}\n$`,
      ),
      exitCode: 0,
    });
    const { gunzipSync } = await import("node:zlib");
    expect((await readFile(out)).equals(gunzipSync(await readFile(gzipped)))).toBe(true);
  });
  test("a damaged file exits 3 and leaves no output file", async () => {
    const damaged = Buffer.from(await readFile(join(GOLDEN, "v1-zstd.enc.dbvault")));
    damaged[damaged.length - 20]! ^= 1;
    const input = join(dir, "damaged.enc.dbvault");
    await writeFile(input, damaged);
    const out = join(dir, "damaged.archive");
    await expectRun(["decrypt", "--in", input, "--out", out, "--config", goldenConfig], {
      stderr:
        /^dbvault-agent: backup file is corrupted at chunk 5: it failed authentication; no data from that chunk was output; fetch the file again or use another backup\n$/,
      exitCode: 3,
    });
    expect(existsSync(out)).toBe(false);
    const { readdir } = await import("node:fs/promises");
    expect((await readdir(dir)).filter((name) => name.includes("partial"))).toEqual([]);
  });
  describe("decrypt --out - verifies the whole file before writing a byte", () => {
    const truncatedMessage =
      "dbvault-agent: backup file is truncated: it ends in the middle of chunk 17; the download or upload was cut short, fetch the file again\n";
    const truncated = async () => {
      const whole = await readFile(join(GOLDEN, "v1-none.enc.dbvault"));
      const path = join(dir, "truncated.enc.dbvault");
      await writeFile(path, whole.subarray(0, whole.length - 40));
      return path;
    };
    // The private temporary copy of stdin goes here, to be seen removed.
    const tmp = () => join(dir, "tmp");
    const runWithTmp = async (args: string[], stdin?: Uint8Array) => {
      const { mkdir, readdir } = await import("node:fs/promises");
      await rm(tmp(), { recursive: true, force: true });
      await mkdir(tmp());
      const run = await runAgent(args, { env: { ...env(), TMPDIR: tmp() }, stdin });
      return { ...run, leftovers: await readdir(tmp()) };
    };

    test("a truncated file: nothing on stdout, exit 3 (the bytes before the fault are not sent)", async () => {
      const run = await runWithTmp(["decrypt", "--in", await truncated(), "--out", "-", "--config", goldenConfig]);
      expect({ stdout: run.stdoutBytes.length, stderr: run.stderr, exitCode: run.exitCode }).toEqual({ stdout: 0, stderr: truncatedMessage, exitCode: 3 });
    });
    test("a truncated file on stdin: nothing on stdout, exit 3, no temporary copy left", async () => {
      const run = await runWithTmp(["decrypt", "--in", "-", "--out", "-", "--config", goldenConfig], await readFile(await truncated()));
      expect({ stdout: run.stdoutBytes.length, stderr: run.stderr, exitCode: run.exitCode, leftovers: run.leftovers }).toEqual({
        stdout: 0,
        stderr: truncatedMessage,
        exitCode: 3,
        leftovers: [],
      });
    });
    test("a whole file on stdin: the archive byte for byte, said verified first, no temporary copy left", async () => {
      const run = await runWithTmp(["decrypt", "--in", "-", "--out", "-", "--config", goldenConfig], await readFile(join(GOLDEN, "v1-none.enc.dbvault")));
      expect(run.stderr).toBe(
        "dbvault-agent: decrypted stdin (made 2026-11-23T12:00:00.000Z) into stdout: 4.4 KB of uncompressed mongodump archive (every chunk verified before the first byte was written) (encrypt seals mongodump --gzip archives decompressed: restore it without --gzip)\n",
      );
      expect(run.exitCode).toBe(0);
      expect(run.stdoutBytes.equals(await readFile(join(GOLDEN, "plaintext.mongodump-archive")))).toBe(true);
      expect(run.leftovers).toEqual([]);
    });
    test("--no-verify-first writes the authenticated chunks before the fault, then exits 3", async () => {
      const run = await runAgent(["decrypt", "--in", await truncated(), "--out", "-", "--no-verify-first", "--config", goldenConfig], { env: env() });
      expect({ stderr: run.stderr, exitCode: run.exitCode }).toEqual({ stderr: truncatedMessage, exitCode: 3 });
      const plaintext = await readFile(join(GOLDEN, "plaintext.mongodump-archive"));
      expect(run.stdoutBytes.length).toBeGreaterThan(0);
      expect(run.stdoutBytes.equals(plaintext.subarray(0, run.stdoutBytes.length))).toBe(true);
    });
    test("--verify-first and --no-verify-first together are a usage error", () =>
      expectRun(["decrypt", "--in", "x", "--out", "-", "--verify-first", "--no-verify-first"], {
        stderr: `dbvault-agent: decrypt: --verify-first and --no-verify-first cannot be given together\n${HINT_USAGE}`,
        exitCode: 2,
      }));
    test("decrypt --help says so", () => expectRun(["decrypt", "--help"], { stdout: DECRYPT_HELP, stderr: "", exitCode: 0 }));
  });
  test("a plain archive given to decrypt is named for what it is", () =>
    expectRun(["decrypt", "--in", join(GOLDEN, "plaintext.mongodump-archive"), "--out", join(dir, "never"), "--config", goldenConfig], {
      stderr:
        "dbvault-agent: not a dbvault backup file: it does not start with the .enc.dbvault magic bytes\n" +
        "dbvault-agent: hint: to seal a plain mongodump archive, use dbvault-agent encrypt\n",
      exitCode: 3,
    }));
  test("encrypt from stdin and verify the result; an existing output needs --force", async () => {
    const plaintext = await readFile(join(GOLDEN, "plaintext.mongodump-archive"));
    const out = join(dir, "sealed.enc.dbvault");
    await expectRun(
      ["encrypt", "--in", "-", "--out", out, "--config", goldenConfig],
      {
        stderr: new RegExp(
          `^dbvault-agent: sealed 44 documents in 3 namespaces from stdin into ${out} \\(\\d+(\\.\\d)? (Bytes|KB), key id ${TEST_KEY_ID}\\)\\n$`,
        ),
        exitCode: 0,
      },
      plaintext,
    );
    const verified = await runAgent(["verify", "--in", out, "--json", "--config", goldenConfig]);
    expect(verified.stdout).toBe('{"namespaces":{"admin.system.version":1,"test.foo":25,".oplog":18}}\n');
    await expectRun(
      ["encrypt", "--in", "-", "--out", out, "--config", goldenConfig],
      {
        stderr: `dbvault-agent: ${out} already exists\ndbvault-agent: hint: choose another name, or pass --force to replace it\n`,
        exitCode: 1,
      },
      plaintext,
    );
  });
  test("verify lists a time-series collection under its own name, counting its buckets", async () => {
    const sealed = join(dir, "timeseries.enc.dbvault");
    await expectRun(
      ["encrypt", "--in", new URL("../test-data/mongodump-archives/timeseries.archive", import.meta.url).pathname, "--out", sealed, "--config", goldenConfig],
      {
        stderr: /^dbvault-agent: sealed 11 documents in 3 namespaces from /,
        exitCode: 0,
      },
    );
    await expectRun(["verify", "--in", sealed, "--json", "--config", goldenConfig], {
      stdout: '{"namespaces":{"admin.system.version":1,"admin.system.views":0,"timeseries_test.foo_ts":10}}\n',
      stderr: "",
      exitCode: 0,
    });
    const listing = await runAgent(["verify", "--in", sealed, "--config", goldenConfig], { env: env() });
    expect(listing.stdout.split("\n").slice(5)).toEqual([
      "namespaces:",
      "  admin.system.version               1 document",
      "  admin.system.views                 0 documents",
      "  timeseries_test.foo_ts            10 time-series buckets",
      "ok: 11 documents in 3 namespaces; every chunk and checksum verified",
      "",
    ]);
  });
  test("encrypt refuses a damaged mongodump archive and writes nothing", async () => {
    const out = join(dir, "refused.enc.dbvault");
    await expectRun(
      ["encrypt", "--in", new URL("../test-data/mongodump-archives/bad-format.archive", import.meta.url).pathname, "--out", out, "--config", goldenConfig],
      {
        stderr: /^dbvault-agent: the data is not a valid mongodump archive: the metadata of test\.ixtest is not valid Extended JSON: .* \(at byte 106\)\n$/,
        exitCode: 3,
      },
    );
    expect(existsSync(out)).toBe(false);
  });
  test("encrypt refuses an archive whose documents do not match their checksum, compressed or not, and writes nothing", async () => {
    // One bit flipped where only the CRC-64 tells: without compression the checksum runs on its
    // own thread (two cores or more), with zstd on the main one; both must refuse.
    const original = new Uint8Array(await readFile(new URL("../test-data/mongodump-archives/modern-5k.archive", import.meta.url).pathname));
    const { ArchiveScanner } = await import("../src/dump/mongodump-archive/index.ts");
    const damaged = original.slice();
    for (let at = Math.floor(original.length / 2); ; at += 97) {
      damaged.set(original);
      damaged[at]! ^= 0x10;
      const scanner = new ArchiveScanner({ documents: false }, () => {});
      const code = (() => {
        try {
          scanner.write(damaged);
          scanner.end();
        } catch (error) {
          return (error as { code?: string }).code;
        }
      })();
      if (code === "crc-mismatch") break;
    }
    const input = join(dir, "crc-damaged.archive");
    await writeFile(input, damaged);
    for (const compression of ["none", "zstd"]) {
      const out = join(dir, `crc-damaged-${compression}.enc.dbvault`);
      await expectRun(["encrypt", "--compression", compression, "--in", input, "--out", out, "--config", goldenConfig], {
        // The stored CRC has its top bit set: printed unsigned, in hex (as a signed number it was negative).
        stderr:
          "dbvault-agent: the data is not a valid mongodump archive: the documents of shop.orders do not match their checksum (stored CRC-64 f1b5964080be1f6c); the archive is damaged (at byte 1000374)\n",
        exitCode: 3,
      });
      expect(existsSync(out)).toBe(false);
    }
  });
});

test("an unreachable database exits 1 naming the host only, never the credentials", async () => {
  const out = join(dir, "unreachable.enc.dbvault");
  const run = await expectRun(["dump", "--db", "shop", "--out", out, "--config", otherConfig, "--quiet"], {
    stderr:
      /^dbvault-agent: cannot connect to mongodb at 127\.0\.0\.1:1: .*\ndbvault-agent: hint: check that the server at 127\.0\.0\.1:1 is running and reachable from this machine, and the credentials in the config file\n$/,
    exitCode: 1,
  });
  expect(run.stderr).not.toContain("hunter2");
  expect(run.stderr).not.toContain("//agent");
  expect(existsSync(out)).toBe(false);
});

describe("every command has its own help", () => {
  const { findCommandHelp, HELP_TOPICS } = require("../src/commands/help-topics.ts") as typeof import("../src/commands/help-topics.ts");
  const SOURCES: Record<string, string> = {
    setup: "setup.ts",
    run: "run.ts",
    status: "status.ts",
    list: "list.ts",
    backup: "backup.ts",
    db: "db.ts",
    copies: "copies.ts",
    dump: "dump.ts",
    restore: "restore.ts",
    encrypt: "encrypt.ts",
    decrypt: "decrypt.ts",
    verify: "verify.ts",
    key: "key.ts",
    service: "service.ts",
  };

  test("the commands with help are every command of the general help", () => {
    const listed = [...HELP_TEXT.matchAll(/^ {2}([a-z]+) /gm)].map((match) => match[1]!).filter((word) => word !== "help");
    expect(new Set(HELP_TOPICS)).toEqual(new Set(listed));
  });
  for (const command of [
    "setup",
    "run",
    "status",
    "list",
    "backup",
    "db",
    "copies",
    "dump",
    "restore",
    "encrypt",
    "decrypt",
    "verify",
    "key",
    "service",
    "version",
  ]) {
    test(`help ${command} and ${command} --help print its usage, every option it takes and an example`, async () => {
      const text = findCommandHelp(command)!;
      expect(text).toStartWith(`usage: dbvault-agent ${command}`);
      expect(text).toMatch(/\nexample[^\n]*:\n {2}\S/);
      // Every option the command's parser accepts (read from its source, so a new one without help fails here).
      const source = SOURCES[command] ? await readFile(new URL(`../src/commands/${SOURCES[command]}`, import.meta.url), "utf8") : "";
      const options = [...source.matchAll(/"?([a-z][a-z-]*)"?: "(?:string|boolean)"/g)].map((match) => match[1]!).filter((name) => name !== "quiet");
      for (const option of new Set(options)) expect(text).toContain(`--${option}`);
      await expectRun(["help", command], { stdout: text, stderr: "", exitCode: 0 });
      await expectRun([command, "--help"], { stdout: text, stderr: "", exitCode: 0 });
    });
  }
  test("setup's --name says the default name as the web app shows it (hostname and the id's end)", () => {
    const { defaultAgentName } = require("../../server/src/modules/agents/service.ts") as typeof import("../../server/src/modules/agents/service.ts");
    expect(defaultAgentName("db-host", "6b16fd32dc5d78b0b40a3f2a")).toBe("db-host-3f2a");
    expect(findCommandHelp("setup")).toContain(
      "  --name NAME          the agent's name in the web app (default: this machine's hostname and\n" +
        "                       the end of the agent's id, e.g. db-host-3f2a). --force keeps the name\n" +
        "                       the agent has; after it was removed, it is a new agent with a new name\n",
    );
  });
  test("an option of db add's own help asked after the action", () =>
    expectRun(["db", "add", "--help"], { stdout: findCommandHelp("db")!, stderr: "", exitCode: 0 }));
});

describe("setup, run and db", () => {
  const UNREACHABLE_URI = "mongodb://agent:hunter2-secret@127.0.0.1:1/shop?serverSelectionTimeoutMS=300";

  test("help for an unknown topic", () =>
    expectRun(["help", "nope"], {
      stderr: `dbvault-agent: help: no command "nope" (commands: setup, run, status, list, backup, db, copies, dump, restore, encrypt, decrypt, verify, key, service, version)\n${HINT_USAGE}`,
      exitCode: 2,
    }));
  test("setup refuses a server URL that is not http(s)", () =>
    expectRun(["setup", "--server", "ftp://example.com"], {
      stderr: `dbvault-agent: setup: --server must start with https:// or http://\n${HINT_USAGE}`,
      exitCode: 2,
    }));
  test("setup without a terminal and without an API key says where the key can come from", () =>
    expectRun(["setup", "--server", "https://dbvault.example.com", "--db", "shop", "--config", join(dir, "never.json")], {
      stderr:
        "dbvault-agent: setup: missing the API key\n" +
        "dbvault-agent: hint: pass --api-key-file PATH (- for stdin) or set DBVAULT_API_KEY; see dbvault-agent help setup\n",
      exitCode: 2,
    }));
  test("only one secret can come from stdin", () =>
    expectRun(["setup", "--server", "https://x.example", "--api-key-file", "-", "--uri-file", "-", "--db", "shop"], {
      stderr: `dbvault-agent: setup: only one of --api-key-file, --uri-file can read stdin (-)\n${HINT_USAGE}`,
      exitCode: 2,
    }));
  test("a databases file line without NAME=URI is refused without quoting it", async () => {
    const file = join(dir, "bad-databases.txt");
    await writeFile(file, "# ok\nshop mongodb://u:do-not-print@h/x\n");
    const keyFile = join(dir, "api-key.txt");
    await writeFile(keyFile, "dbv_test-key\n");
    const run = await expectRun(["setup", "--server", "https://x.example", "--api-key-file", keyFile, "--databases-file", file], {
      stderr: `dbvault-agent: setup: line 2 of the databases file is not NAME=CONNECTION-STRING\n${HINT_USAGE}`,
      exitCode: 2,
    });
    expect(run.stderr).not.toContain("do-not-print");
  });
  test("setup tests the database before anything else and saves nothing when it cannot connect", async () => {
    const path = join(dir, "unreachable-setup.json");
    const run = await runAgent(["setup", "--server", "http://127.0.0.1:1", "--db", "shop", "--config", path], {
      env: { ...env(), DBVAULT_API_KEY: "dbv_never-printed-key", DBVAULT_DB_URI: UNREACHABLE_URI },
    });
    expect(run.stderr).toBe(
      'dbvault-agent: cannot use the database "shop": nothing is listening at 127.0.0.1:1 (connection refused)\n' +
        "dbvault-agent: hint: check the host and port (MongoDB listens on 27017 unless set otherwise) and that MongoDB is running; nothing was saved\n",
    );
    expect(run.exitCode).toBe(1);
    for (const secret of ["hunter2", "never-printed", "//agent"]) expect(run.stderr).not.toContain(secret);
    expect(existsSync(path)).toBe(false);
  });
  test("db add and setup name a certificate file that is missing or not a file, before connecting, and save nothing", async () => {
    const path = join(dir, "never-cert.json");
    const missing = join(dir, "no-such-client.pem");
    const hint =
      "dbvault-agent: hint: tlsCertificateKeyFile is a path on this machine, read by the agent at every connection: copy the file here, readable by the user the agent runs as, and name its full path; nothing was saved\n";
    const uri = (file: string) =>
      `mongodb://127.0.0.1:1/shop?tls=true&authMechanism=MONGODB-X509&tlsCertificateKeyFile=${encodeURIComponent(file)}&tlsCertificateKeyFilePassword=hunter2-secret`;
    const run = await runAgent(["db", "add", "--db", "shop", "--config", path], { env: { ...env(), DBVAULT_DB_URI: uri(missing) } });
    expect(run.stderr).toBe(
      `dbvault-agent: cannot use the database "shop": the file ${missing} (tlsCertificateKeyFile) does not exist on this machine\n${hint}`,
    );
    expect(run.exitCode).toBe(1);
    const directory = await runAgent(["db", "add", "--db", "shop", "--config", path], { env: { ...env(), DBVAULT_DB_URI: uri(dir) } });
    expect(directory.stderr).toBe(`dbvault-agent: cannot use the database "shop": ${dir} (tlsCertificateKeyFile) is not a file\n${hint}`);
    const keyFile = join(dir, "api-key-cert.txt");
    await writeFile(keyFile, "dbv_test-key\n");
    const setup = await runAgent(["setup", "--server", "http://127.0.0.1:1", "--api-key-file", keyFile, "--db", "shop", "--config", path], {
      env: { ...env(), DBVAULT_DB_URI: uri(missing) },
    });
    expect(setup.stderr).toBe(
      `dbvault-agent: cannot use the database "shop": the file ${missing} (tlsCertificateKeyFile) does not exist on this machine\n${hint}`,
    );
    for (const result of [run, directory, setup]) expect(result.stderr).not.toContain("hunter2");
    expect(existsSync(path)).toBe(false);
  });
  test("a connection string without mongodb:// says what it should be, never the usage hint", async () => {
    const keyFile = join(dir, "api-key-2.txt");
    await writeFile(keyFile, "dbv_test-key\n");
    const run = await runAgent(["setup", "--server", "https://x.example", "--api-key-file", keyFile, "--db", "shop", "--config", join(dir, "never.json")], {
      env: { ...env(), DBVAULT_DB_URI: "localhost:27117" },
    });
    expect(run.stderr).toBe(
      'dbvault-agent: setup: the connection string of "shop" is not usable: this is not a MongoDB connection string: it must start with mongodb:// or mongodb+srv://\n' +
        "dbvault-agent: hint: did you mean mongodb://localhost:27117?\n",
    );
    const secret = await runAgent(["setup", "--server", "https://x.example", "--api-key-file", keyFile, "--db", "shop", "--config", join(dir, "never.json")], {
      env: { ...env(), DBVAULT_DB_URI: "admin:hunter2@localhost:27117" },
    });
    expect(secret.stderr).toContain("hint: it looks like mongodb://user:password@host:27017/database\n");
    expect(secret.stderr).not.toContain("hunter2");
  });
  test("restore --uri refuses a password on the command line and a string that is not a connection string", async () => {
    const backup = join(GOLDEN, "v1-zstd.enc.dbvault");
    const run = await expectRun(["restore", "--uri", "mongodb://admin:hunter2@127.0.0.1:1/shop", "--in", backup, "--config", goldenConfig], {
      stderr:
        "dbvault-agent: restore: --uri must not hold a password (ps and shell history would show it)\n" +
        "dbvault-agent: hint: put the connection string in a file and pass --uri-file PATH (- reads stdin), or set DBVAULT_DB_URI\n",
      exitCode: 2,
    });
    expect(run.stderr).not.toContain("hunter2");
    await expectRun(["restore", "--uri", "127.0.0.1:1/shop", "--in", backup, "--config", goldenConfig], {
      stderr:
        "dbvault-agent: restore: the connection string to restore into is not usable: this is not a MongoDB connection string: it must start with mongodb:// or mongodb+srv://\n" +
        "dbvault-agent: hint: did you mean mongodb://127.0.0.1:1/shop?\n",
      exitCode: 2,
    });
    await expectRun(["restore", "--in", backup, "--config", goldenConfig], {
      stderr:
        "dbvault-agent: restore: missing --db NAME (a database of the config file) or --uri URI\n" +
        "dbvault-agent: hint: with no database in the config file, name the MongoDB to restore into: --uri mongodb://localhost:27017/shop\n",
      exitCode: 2,
    });
  });
  test("run needs a set-up config", async () => {
    const hint = `dbvault-agent: hint: connect this agent first with: dbvault-agent setup --config ${goldenConfig}\n`;
    await expectRun(["run", "--config", goldenConfig], {
      stderr: `dbvault-agent: the config file ${goldenConfig} does not say how to reach a DBVault server\n${hint}`,
      exitCode: 4,
    });
    const missing = join(dir, "xdg", "dbvault", "agent.json");
    await expectRun(["run"], {
      stderr: `dbvault-agent: no config file at ${missing}\ndbvault-agent: hint: connect this agent first with: dbvault-agent setup --config ${missing}\n`,
      exitCode: 4,
    });
  });
  test("db without an action", () => expectRun(["db"], { stderr: `dbvault-agent: db: missing action (add or list)\n${HINT_USAGE}`, exitCode: 2 }));
  test("db list prints names and hosts, never the connection string", () =>
    expectRun(["db", "list", "--config", otherConfig], { stdout: "shop\t127.0.0.1:1\n", stderr: "", exitCode: 0 }));
});

describe("copies", () => {
  const ADD_HINT = "dbvault-agent: hint: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE (or --profile), or run it in a terminal to be asked\n";
  test("copies without an action", () =>
    expectRun(["copies"], { stderr: `dbvault-agent: copies: missing action (add, list, remove or check)\n${HINT_USAGE}`, exitCode: 2 }));
  test("copies check with a bad --sample, and on a config without copy destinations", async () => {
    await expectRun(["copies", "check", "--sample", "some"], {
      stderr: `dbvault-agent: copies check: --sample must be a number of copies to read back whole, or all\n${HINT_USAGE}`,
      exitCode: 2,
    });
    await expectRun(["copies", "check", "--config", goldenConfig], {
      stderr: `dbvault-agent: copies check: the config file ${goldenConfig} has no copy destinations\ndbvault-agent: hint: add your bucket with: dbvault-agent copies add s3://BUCKET/PREFIX?endpoint=…\n`,
      exitCode: 4,
    });
  });
  test("copies add without a destination", () =>
    expectRun(["copies", "add"], {
      stderr: `dbvault-agent: copies add: missing the destination (s3://bucket/prefix?endpoint=…&region=…)\n${HINT_USAGE}`,
      exitCode: 2,
    }));
  test("a destination that is not s3:// says how to write it", () =>
    expectRun(["copies", "add", "https://bucket.example.com/x"], {
      stderr:
        "dbvault-agent: copies add: the copy destination must be an s3:// URL, not https://\ndbvault-agent: hint: write it as s3://bucket/prefix?endpoint=https://…&region=…\n",
      exitCode: 2,
    }));
  test("credentials in the URL are refused without quoting them", async () => {
    const run = await expectRun(["copies", "add", "s3://AKIAX:topsecret-key@my-bucket/x"], {
      stderr: `dbvault-agent: copies add: the copy destination URL must not hold credentials (they would stay in the shell history)\ndbvault-agent: hint: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, or type them when asked\n`,
      exitCode: 2,
    });
    expect(run.stderr).not.toContain("topsecret");
  });
  test("copies add without credentials and without a terminal says where they can come from", () =>
    expectRun(["copies", "add", "s3://my-bucket/x?endpoint=http://127.0.0.1:1", "--config", join(dir, "copies-none.json")], {
      stderr: `dbvault-agent: copies add: no credentials for the bucket\n${ADD_HINT}`,
      exitCode: 2,
    }));
  test("copies remove of a destination the config lacks lists the ones it has", () =>
    expectRun(["copies", "remove", "s3://my-bucket/x", "--config", goldenConfig], {
      stderr: `dbvault-agent: copies remove: s3://my-bucket/x/ is not a copy destination in ${goldenConfig}\ndbvault-agent: hint: the config file has no copy destinations\n`,
      exitCode: 2,
    }));
});
