// `dbvault-agent service`, run as the compiled binary. No systemd runs here (nor in CI), so a fake
// `systemctl` on PATH records how it is called; the unit goes to a directory the test gives.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureFreshBinary } from "./support/end-to-end.ts";
import { BINARY_PATH, runAgent } from "./support/run-agent.ts";

let dir: string;
let fakeBin: string;
let configPath: string;
const calls = () =>
  readFile(join(dir, "systemctl.log"), "utf8").then(
    (text) => text.trim().split("\n"),
    () => [] as string[],
  );

beforeAll(async () => {
  await ensureFreshBinary();
  dir = await mkdtemp(join(tmpdir(), "dbvault-service-"));
  fakeBin = join(dir, "bin");
  await mkdir(fakeBin);
  await writeFile(
    join(fakeBin, "systemctl"),
    `#!/bin/sh\necho "$*" >> ${join(dir, "systemctl.log")}\ncase "$*" in *is-active*) echo active ;; *status*) echo "● dbvault-agent.service - DBVault backup agent" ;; esac\n`,
  );
  await chmod(join(fakeBin, "systemctl"), 0o755);
  // A set-up config: a key, and the server settings setup would have written.
  configPath = join(dir, "agent.json");
  expect((await runAgent(["key", "generate", "--config", configPath], { command: [BINARY_PATH] })).exitCode).toBe(0);
  const config = JSON.parse(await readFile(configPath, "utf8"));
  config.server = { url: "https://dbvault.example.com", apiKey: "dbv_test", agentId: "agent-1", agentToken: "dbvt_test" };
  await writeFile(configPath, JSON.stringify(config), { mode: 0o600 });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const service = (args: string[], path = `${fakeBin}:/usr/bin:/bin`) => runAgent(["service", ...args], { command: [BINARY_PATH], env: { PATH: path } });

describe("service", () => {
  test("install writes a unit that runs this binary with the config, then enables and starts it", async () => {
    const unitDir = join(dir, "units");
    const installed = await service(["install", "--unit-dir", unitDir, "--config", configPath]);
    expect(installed.stderr).toContain(`wrote ${unitDir}/dbvault-agent.service`);
    expect(installed.exitCode).toBe(0);
    const unit = await readFile(join(unitDir, "dbvault-agent.service"), "utf8");
    expect(unit).toContain(`ExecStart=${BINARY_PATH} run --config ${configPath}`);
    expect(unit).toContain("RestartPreventExitStatus=78");
    expect(unit).toContain("Restart=on-failure");
    expect((await stat(join(unitDir, "dbvault-agent.service"))).mode & 0o777).toBe(0o644);
    const scope = process.getuid?.() === 0 ? "" : "--user ";
    expect(await calls()).toEqual([`${scope}daemon-reload`, `${scope}enable --now dbvault-agent.service`]);

    const status = await service(["status", "--unit-dir", unitDir]);
    expect(status.exitCode).toBe(0);
    expect(status.stdout).toContain("DBVault backup agent");
    expect(status.stderr).toContain("dbvault-agent.service is active");

    const removed = await service(["uninstall", "--unit-dir", unitDir]);
    expect(removed.exitCode).toBe(0);
    await expect(stat(join(unitDir, "dbvault-agent.service"))).rejects.toThrow();
    expect((await calls()).slice(-2)).toEqual([`${scope}disable --now dbvault-agent.service`, `${scope}daemon-reload`]);
  });

  test("--user writes a user unit and talks to the user's manager", async () => {
    const unitDir = join(dir, "user-units");
    expect((await service(["install", "--user", "--unit-dir", unitDir, "--config", configPath])).exitCode).toBe(0);
    expect(await readFile(join(unitDir, "dbvault-agent.service"), "utf8")).toContain("WantedBy=default.target");
    expect((await calls()).slice(-1)).toEqual(["--user enable --now dbvault-agent.service"]);
  });

  test("without systemd, install fails saying nothing was installed, and prints the unit and how to run the agent instead", async () => {
    const before = (await calls()).length;
    const installed = await service(["install", "--config", configPath], "/usr/bin:/bin");
    expect(installed.exitCode).toBe(1);
    expect(installed.stderr).toEndWith("dbvault-agent: service install: systemd was not found on this machine, so no service was installed\n");
    expect(installed.stderr).toContain(`${BINARY_PATH} run --config ${configPath}`);
    expect(installed.stdout).toContain("[Service]");
    expect((await calls()).length).toBe(before);
  });

  test("a manager that refuses to start the service leaves nothing installed, and says so", async () => {
    // A user manager that cannot be reached (`systemctl --user` over sudo or su, no login session).
    const refusingBin = join(dir, "refusing-bin");
    await mkdir(refusingBin);
    await writeFile(
      join(refusingBin, "systemctl"),
      `#!/bin/sh\necho "$*" >> ${join(dir, "refusing.log")}\ncase "$*" in *enable*) echo "Failed to connect to bus: No medium found" >&2; exit 1 ;; esac\n`,
    );
    await chmod(join(refusingBin, "systemctl"), 0o755);
    const unitDir = join(dir, "refused-units");
    const installed = await service(["install", "--user", "--unit-dir", unitDir, "--config", configPath], `${refusingBin}:/usr/bin:/bin`);
    expect(installed.stderr).toStartWith(
      "dbvault-agent: service install: `systemctl --user enable --now dbvault-agent.service` failed (exit 1): Failed to connect to bus: No medium found; nothing was installed\n",
    );
    expect(installed.exitCode).toBe(1);
    await expect(stat(join(unitDir, "dbvault-agent.service"))).rejects.toThrow();
  });

  test("a unit folder that cannot be written is named, with what to do, not reported as a bug", async () => {
    // A file where the folder should be stands in for a read-only /etc (these tests run as root too).
    const blocked = join(dir, "blocked");
    await writeFile(blocked, "");
    const installed = await service(["install", "--unit-dir", join(blocked, "units"), "--config", configPath]);
    expect(installed.stderr).toStartWith(`dbvault-agent: service install: cannot write ${join(blocked, "units")} (ENOTDIR); nothing was installed\n`);
    expect(installed.stderr).toContain("dbvault-agent: hint: ");
    expect(installed.stderr).not.toContain("unexpected error");
    expect(installed.exitCode).toBe(1);
  });

  test("refuses a config that is not set up, and an unknown action", async () => {
    const bare = join(dir, "bare.json");
    expect((await runAgent(["key", "generate", "--config", bare], { command: [BINARY_PATH] })).exitCode).toBe(0);
    const refused = await service(["install", "--unit-dir", join(dir, "never"), "--config", bare]);
    expect(refused.exitCode).toBe(4);
    await expect(stat(join(dir, "never"))).rejects.toThrow();
    const unknown = await service(["restart"]);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('service: unknown action "restart"');
  });
});
