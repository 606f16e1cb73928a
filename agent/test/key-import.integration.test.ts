// `dbvault-agent key import`, run as the compiled binary: the recovery story's first step.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureFreshBinary } from "./support/end-to-end.ts";
import { BINARY_PATH, runAgent } from "./support/run-agent.ts";

let dir: string;
beforeAll(async () => {
  await ensureFreshBinary();
  dir = await mkdtemp(join(tmpdir(), "dbvault-key-import-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const agent = (args: string[], stdin?: string) =>
  runAgent(args, { command: [BINARY_PATH], ...(stdin === undefined ? {} : { stdin: new TextEncoder().encode(stdin) }) });

/** A fresh key as `key export` prints it, from a throw-away config. */
async function exportedKey(name: string): Promise<string> {
  const config = join(dir, `${name}-source.json`);
  expect((await agent(["key", "generate", "--config", config])).exitCode).toBe(0);
  return (await agent(["key", "export", "--config", config])).stdout.trim();
}

describe("key import", () => {
  test("puts a saved key into a new config (stdin or --key-file), 0600, with the same key id", async () => {
    const key = await exportedKey("a");
    const config = join(dir, "a.json");
    const imported = await agent(["key", "import", "--config", config], `${key}\n`);
    expect(imported.exitCode).toBe(0);
    expect(imported.stderr + imported.stdout).toMatch(/imported the master key \(key id [0-9a-f]+\)/);
    expect((await agent(["key", "export", "--config", config])).stdout.trim()).toBe(key);
    expect((await stat(config)).mode & 0o777).toBe(0o600);

    const keyFile = join(dir, "saved-key.txt");
    await writeFile(keyFile, `${key}\n`, { mode: 0o600 });
    const fromFile = await agent(["key", "import", "--key-file", keyFile, "--config", join(dir, "b.json")]);
    expect(fromFile.exitCode).toBe(0);
    expect(JSON.parse(await readFile(join(dir, "b.json"), "utf8")).masterKey).toBe(JSON.parse(await readFile(config, "utf8")).masterKey);
  });

  test("the same key again changes nothing; a different key needs --force", async () => {
    const key = await exportedKey("c");
    const other = await exportedKey("d");
    const config = join(dir, "c.json");
    expect((await agent(["key", "import", "--config", config], key)).exitCode).toBe(0);
    const same = await agent(["key", "import", "--config", config], key);
    expect(same.exitCode).toBe(0);
    expect(same.stderr + same.stdout).toContain("already holds this master key");
    const refused = await agent(["key", "import", "--config", config], other);
    expect(refused.exitCode).toBe(4);
    expect(refused.stderr).toContain("holds a different master key");
    expect((await agent(["key", "export", "--config", config])).stdout.trim()).toBe(key);
    const forced = await agent(["key", "import", "--force", "--config", config], other);
    expect(forced.exitCode).toBe(0);
    expect((await agent(["key", "export", "--config", config])).stdout.trim()).toBe(other);
  });

  test("refuses a key on the command line and anything that is not a key", async () => {
    const key = await exportedKey("e");
    const onArgv = await agent(["key", "import", key, "--config", join(dir, "e.json")]);
    expect(onArgv.exitCode).toBe(2);
    expect(onArgv.stderr).toContain("the key must not be given on the command line");
    expect(onArgv.stderr).not.toContain(key);
    const damaged = await agent(["key", "import", "--config", join(dir, "f.json")], `${key.slice(0, -2)}xx`);
    expect(damaged.exitCode).toBe(1);
    expect(damaged.stderr).toContain("this is not a master key");
    await expect(stat(join(dir, "f.json"))).rejects.toThrow();
  });
});
