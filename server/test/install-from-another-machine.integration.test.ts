// The one-line install run on a second machine, as a user does after opening the web app at the
// server's LAN address with PUBLIC_URL left unset: a network namespace stands in for that machine,
// joined to this one by a veth pair with TEST-NET addresses (192.0.2.0/24, never routed
// anywhere), so only traffic between the two namespaces on this host is involved. It needs root
// and `ip`; without them it is skipped and says why. The server is the real process (`npm start`).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ServerProcess, startServer, stopServer } from "../../testkit/server-process";
import { createTestReleaseKey, signAgentDir } from "../../testkit/signed-agent-release";

const ip = Bun.which("ip");
const curl = Bun.which("curl");
const isRoot = process.getuid?.() === 0;
const skipReason = !isRoot ? "not root" : !ip ? "no ip command" : !curl ? "no curl" : null;
if (skipReason) console.warn(`install from another machine: skipped (${skipReason}: a network namespace needs root and ip)`);

// One /30 of TEST-NET-1 per test process, so parallel runs on this host do not collide.
const subnet = 4 * (process.pid % 63);
const serverAddress = `192.0.2.${subnet + 1}`;
const otherAddress = `192.0.2.${subnet + 2}`;
const namespace = `dbv-other-${process.pid}`;
const hostSide = `dbvh${process.pid % 100000}`;

const binary = randomBytes(100_000);
let work: string;
let server: ServerProcess;

const run = (args: string[]) => {
  const result = Bun.spawnSync(args, { stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`${args.join(" ")}: ${result.stderr.toString()}`);
};

/** Runs a shell command on the other machine (inside its namespace). */
async function onOtherMachine(command: string, env: Record<string, string> = {}) {
  const child = Bun.spawn([ip!, "netns", "exec", namespace, "/bin/sh", "-c", command], {
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(work, "home"), ...env },
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { stdout, stderr, code };
}

describe.skipIf(skipReason !== null)("install from a second machine, PUBLIC_URL unset", () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "dbvault-other-machine-"));
    chmodSync(work, 0o755);
    writeFileSync(join(work, "dbvault-agent-linux-x64"), binary);
    // Only signed builds are offered: the stand-in is signed with a key the server is told to trust.
    const key = createTestReleaseKey();
    await signAgentDir(work, key, { "dbvault-agent-linux-x64": { platform: "linux-x64" } });
    run([ip!, "netns", "add", namespace]);
    run([ip!, "link", "add", hostSide, "type", "veth", "peer", "name", "eth0", "netns", namespace]);
    run([ip!, "addr", "add", `${serverAddress}/30`, "dev", hostSide]);
    run([ip!, "link", "set", hostSide, "up"]);
    run([ip!, "-n", namespace, "addr", "add", `${otherAddress}/30`, "dev", "eth0"]);
    run([ip!, "-n", namespace, "link", "set", "eth0", "up"]);
    run([ip!, "-n", namespace, "link", "set", "lo", "up"]);
    // Listening on the veth address only: nothing outside this host can reach it.
    server = await startServer({ DATA_DIR: join(work, "data"), AGENT_DIR: work, PUBLIC_URL: "", RELEASE_PUBLIC_KEY: key.publicKey }, { host: serverAddress });
  }, 90_000);
  afterAll(async () => {
    if (server) await stopServer(server);
    Bun.spawnSync([ip!, "netns", "del", namespace]); // takes its end of the veth pair, and so both
    Bun.spawnSync([ip!, "link", "del", hostSide]);
    rmSync(work, { recursive: true, force: true });
  }, 30_000);

  test("curl | sh on the other machine downloads from the address it used, installs, and names the setup command", async () => {
    const { url } = server;
    // The other machine has no route to this one's loopback: a script pointing at localhost fails there.
    const result = await onOtherMachine(`curl -fsSL ${url}/install.sh | sh`, { DBVAULT_INSTALL_DIR: join(work, "bin") });
    expect(result.stderr).not.toContain("localhost");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`downloading ${url}/downloads/dbvault-agent-linux-x64`);
    expect(result.stdout).toContain(`next: ${join(work, "bin")}/dbvault-agent setup --server ${url}`);
    const installed = readFileSync(join(work, "bin", "dbvault-agent"));
    expect(createHash("sha256").update(installed).digest("hex")).toBe(createHash("sha256").update(binary).digest("hex"));
  }, 30_000);

  test("the web app's release answer names that address and says PUBLIC_URL is not set", async () => {
    const result = await onOtherMachine(`curl -fsS ${server.url}/api/agent/releases`);
    expect(result.code).toBe(0);
    const releases = JSON.parse(result.stdout);
    expect(releases.installScript).toBe(`${server.url}/install.sh`);
    expect(releases.installPowerShell).toBe(`${server.url}/install.ps1`);
    expect(releases.publicUrlSet).toBe(false);
    const ps = await onOtherMachine(`curl -fsS ${server.url}/install.ps1`);
    expect(ps.stdout).toContain(`$server = '${server.url}'`);
  });
});
