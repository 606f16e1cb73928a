// Golden CLI tests of the keyring (issue 27 §5): key rotate, key export --all, key import of a
// keyring or with --add, and the message of a backup whose key no key of the keyring has. Run as
// a separate process, as a user would; exact stderr, stdout and exit codes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeMasterKey, deriveKeyId, encodeMasterKey, generateMasterKey } from "../src/archive/index.ts";
import { runAgent } from "./support/run-agent.ts";

const GOLDEN = new URL("../test-data/golden/", import.meta.url).pathname;
const TEST_KEY = (await readFile(join(GOLDEN, "test-key.txt"), "utf8")).trim();
const TEST_KEY_ID = "32c6aee69f6033de3a2444d67e6f022c";
const SECOND_KEY = (await readFile(join(GOLDEN, "test-key-2.txt"), "utf8")).trim();
const SECOND_KEY_ID = deriveKeyId(decodeMasterKey(SECOND_KEY));

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "dbvault-cli-keyring-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function writeConfig(name: string, config: object): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, JSON.stringify({ version: 1, databases: [], ...config }), { mode: 0o600 });
  await chmod(path, 0o600);
  return path;
}

const run = (args: string[], stdin?: string) =>
  runAgent(args, { env: { XDG_CONFIG_HOME: join(dir, "xdg") }, stdin: stdin === undefined ? undefined : new TextEncoder().encode(stdin) });
const readConfig = async (path: string) => JSON.parse(await readFile(path, "utf8")) as { masterKey: string; oldKeys?: string[] };

describe("key rotate", () => {
  test("new backups use the new key at once; the old key stays in the keyring and still opens old backups", async () => {
    const path = await writeConfig("rotate.json", { masterKey: TEST_KEY });
    const rotated = await run(["key", "rotate", "--config", path]);
    const newId = deriveKeyId(decodeMasterKey((await readConfig(path)).masterKey));
    expect(rotated.stderr).toBe(
      `dbvault-agent: rotated the master key of ${path}: new backups use key id ${newId} from now on; the old key ${TEST_KEY_ID} stays in the keyring to open the backups made with it\n` +
        "dbvault-agent: warning: save the keyring away from this machine (dbvault-agent key export --all prints it): without it the backups made from now on cannot be restored\n",
    );
    expect(rotated.exitCode).toBe(0);
    expect(newId).not.toBe(TEST_KEY_ID);
    expect((await readConfig(path)).oldKeys).toEqual([TEST_KEY]);
    // Backups of the old key, in both formats, still verify with the rotated config.
    for (const name of ["v1-zstd.enc.dbvault", "v2-zstd.enc.dbvault"]) {
      const verified = await run(["verify", "--in", join(GOLDEN, name), "--json", "--config", path]);
      expect(verified.stderr).toBe("");
      expect(verified.exitCode).toBe(0);
    }
    // A new backup is sealed with the new key.
    const sealed = join(dir, "after-rotate.enc.dbvault");
    const encrypted = await run(["encrypt", "--in", join(GOLDEN, "plaintext.mongodump-archive"), "--out", sealed, "--config", path]);
    expect(encrypted.exitCode).toBe(0);
    expect(encrypted.stderr).toContain(`key id ${newId}`);
  });

  test("rotating twice keeps both older keys, newest first", async () => {
    const path = await writeConfig("rotate-twice.json", { masterKey: TEST_KEY });
    await run(["key", "rotate", "--config", path]);
    const middle = (await readConfig(path)).masterKey;
    await run(["key", "rotate", "--config", path]);
    expect((await readConfig(path)).oldKeys).toEqual([middle, TEST_KEY]);
  });

  test("without a master key it says how to get one", async () => {
    const path = await writeConfig("no-key.json", {});
    const result = await run(["key", "rotate", "--config", path]);
    expect(result.stderr).toBe(
      `dbvault-agent: the config file ${path} holds no master key\ndbvault-agent: hint: create one with: dbvault-agent key generate --config ${path}\n`,
    );
    expect(result.exitCode).toBe(4);
  });

  test("--rewrap on a config that was never set up changes nothing and says so", async () => {
    const path = await writeConfig("no-server.json", { masterKey: TEST_KEY });
    const result = await run(["key", "rotate", "--rewrap", "--config", path]);
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toStartWith("dbvault-agent: ");
    expect((await readConfig(path)).masterKey).toBe(TEST_KEY);
  });
});

describe("key export --all and key import", () => {
  test("the exported keyring imported on a new machine opens backups of every key", async () => {
    const source = await writeConfig("source.json", { masterKey: SECOND_KEY, oldKeys: [TEST_KEY] });
    const exported = await run(["key", "export", "--all", "--config", source]);
    expect(exported.stdout).toBe(
      "# dbvault keyring: the master key first, then older keys; keep it secret, keep a copy\n" +
        `# key id ${SECOND_KEY_ID} (master key: new backups use it)\n${SECOND_KEY}\n` +
        `# key id ${TEST_KEY_ID} (older key)\n${TEST_KEY}\n`,
    );
    expect(exported.stderr).toBe("");
    const target = join(dir, "new-machine", "agent.json");
    const imported = await run(["key", "import", "--key-file", "-", "--config", target], exported.stdout);
    expect(imported.exitCode).toBe(0);
    expect(imported.stderr).toStartWith(`dbvault-agent: added 2 keys (key id ${SECOND_KEY_ID}, ${TEST_KEY_ID}) to the keyring of ${target} (`);
    expect(imported.stderr).toContain(`dbvault-agent: new backups use the master key ${SECOND_KEY_ID}; the others open the backups made with them\n`);
    expect(await readConfig(target)).toMatchObject({ masterKey: SECOND_KEY, oldKeys: [TEST_KEY] });
    for (const name of ["v1-gzip.enc.dbvault", "v2-gzip.enc.dbvault", "v2-none-rewrapped.enc.dbvault"]) {
      expect((await run(["verify", "--in", join(GOLDEN, name), "--json", "--config", target])).exitCode).toBe(0);
    }
    const again = await run(["key", "import", "--key-file", "-", "--config", target], exported.stdout);
    expect(again.stderr).toBe(`dbvault-agent: the keyring of ${target} already holds these 2 keys; nothing changed\n`);
  });

  test("import --add puts one older key beside the master key, which stays", async () => {
    const path = await writeConfig("add.json", { masterKey: SECOND_KEY });
    const result = await run(["key", "import", "--add", "--key-file", "-", "--config", path], `${TEST_KEY}\n`);
    expect(result.exitCode).toBe(0);
    expect(await readConfig(path)).toMatchObject({ masterKey: SECOND_KEY, oldKeys: [TEST_KEY] });
  });

  test("a keyring with a damaged line names the line, never its text", async () => {
    const path = await writeConfig("damaged.json", {});
    const damaged = `${SECOND_KEY}\n${TEST_KEY.slice(0, -2)}xx\n`;
    const result = await run(["key", "import", "--key-file", "-", "--config", path], damaged);
    expect(result.stderr).toBe(
      "dbvault-agent: key import: this is not a master key: invalid master key: line 2: the key text's checksum does not match: it was mistyped or damaged\n" +
        "dbvault-agent: hint: paste the whole line dbvault-agent key export printed (dbvk1-…)\n",
    );
    expect(result.exitCode).toBe(1);
  });
});

describe("a backup whose key the keyring lacks", () => {
  test("exits 3 naming the key id needed, the ids the keyring holds, and how to get the key", async () => {
    const a = generateMasterKey();
    const b = generateMasterKey();
    const path = await writeConfig("lacking.json", { masterKey: encodeMasterKey(a), oldKeys: [encodeMasterKey(b)] });
    for (const name of ["v2-zstd.enc.dbvault", "v1-zstd.enc.dbvault"]) {
      const result = await run(["verify", "--in", join(GOLDEN, name), "--config", path]);
      expect(result.stderr).toBe(
        `dbvault-agent: wrong key: this backup was encrypted with the key whose id is ${TEST_KEY_ID}, and no key of the keyring of ${path} has that id (it holds ${deriveKeyId(a)}, ${deriveKeyId(b)})\n` +
          "dbvault-agent: hint: import that key: on the machine that made the backup run dbvault-agent key export --all, then here dbvault-agent key import --add\n",
      );
      expect(result.exitCode).toBe(3);
    }
  });
});
