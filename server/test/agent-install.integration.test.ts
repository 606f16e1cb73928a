// /install.sh run by a real `sh` (with the real curl, sha256sum and openssl) against the server over
// loopback. The "binary" is a few random bytes in a temporary AGENT_DIR, signed with a test release
// key (testkit/signed-agent-release.ts), so these tests need no agent build; the fresh-clone test installs the real one. The downloads themselves:
// agent-downloads.integration.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, generateKeyPairSync, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodePublicKey } from "@protocol/release-manifest";
import { createTestReleaseKey, signAgentDir } from "../../testkit/signed-agent-release";
import { startTestServer, type TestServer } from "./harness";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

let server: TestServer;
let base: string;
let agentDir: string;
let work: string;
const binary = randomBytes(200_000);
const key = createTestReleaseKey();
const LINUX_X64 = { "dbvault-agent-linux-x64": { platform: "linux-x64" } };

beforeAll(async () => {
  agentDir = mkdtempSync(join(tmpdir(), "dbvault-agent-dir-"));
  work = mkdtempSync(join(tmpdir(), "dbvault-install-"));
  chmodSync(work, 0o755); // the unprivileged user of one test runs the commands linked in here
  writeFileSync(join(agentDir, "dbvault-agent-linux-x64"), binary);
  await signAgentDir(agentDir, key, LINUX_X64);
  server = await startTestServer({ AGENT_DIR: agentDir, RELEASE_PUBLIC_KEY: key.publicKey });
  base = server.listen();
}, 60_000);
afterAll(async () => {
  await server.close();
  rmSync(agentDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

/** A directory of commands for the installer's PATH: links to the real ones, plus shims. */
function fakeBin(name: string, options: { omit?: string[]; shims?: Record<string, string> } = {}) {
  const dir = join(work, `bin-${name}`);
  mkdirSync(dir, { recursive: true });
  const real = ["sh", "uname", "mktemp", "chmod", "mv", "mkdir", "rm", "cut", "sed", "grep", "cat", "curl", "wget", "sha256sum", "ldd", "openssl"];
  for (const tool of real.filter((t) => !options.omit?.includes(t) && !(t in (options.shims ?? {})))) {
    const path = Bun.which(tool);
    if (path) symlinkSync(path, join(dir, tool));
  }
  for (const [tool, script] of Object.entries(options.shims ?? {})) {
    writeFileSync(join(dir, tool), `#!/bin/sh\n${script}\n`);
    chmodSync(join(dir, tool), 0o755);
  }
  return dir;
}

async function runInstaller(env: Record<string, string>, alter: (script: string) => string = (script) => script, scriptUrl = `${base}/install.sh`) {
  const script = alter(await (await fetch(scriptUrl)).text());
  const child = Bun.spawn(["/bin/sh", "-s"], {
    stdin: new Blob([script]),
    stdout: "pipe",
    stderr: "pipe",
    env: { HOME: join(work, "home"), DBVAULT_URL: base, ...env },
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { stdout, stderr, code };
}

describe("install.sh", () => {
  test("is a valid POSIX sh script (sh -n, and shellcheck when installed)", async () => {
    const res = await fetch(`${base}/install.sh`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("shellscript");
    const path = join(work, "install.sh");
    writeFileSync(path, await res.text());
    expect(Bun.spawnSync(["sh", "-n", path]).exitCode).toBe(0);
    const shellcheck = Bun.which("shellcheck");
    if (!shellcheck) console.warn("shellcheck is not installed: install.sh checked with sh -n only");
    else {
      const checked = Bun.spawnSync([shellcheck, "--shell=sh", path], { stdout: "pipe" });
      expect(checked.stdout.toString()).toBe("");
      expect(checked.exitCode).toBe(0);
    }
  });

  test("installs the agent into DBVAULT_INSTALL_DIR with the server's checksum and prints the next command", async () => {
    const target = join(work, "installed");
    const { stdout, stderr, code } = await runInstaller({ PATH: fakeBin("ok"), DBVAULT_INSTALL_DIR: target });
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const installed = readFileSync(join(target, "dbvault-agent"));
    expect(sha256(installed)).toBe(sha256(binary));
    expect(Bun.file(join(target, "dbvault-agent")).size).toBe(binary.byteLength);
    expect(stdout).toContain(`installed ${target}/dbvault-agent (SHA-256 ${sha256(binary)}, signed with release key `);
    expect(stdout).toContain(`next: ${target}/dbvault-agent setup --server ${base}`);
  });

  test("the dashboard checklist's command (marked ?for=) turns 'Install the agent' green once it fetched the script and downloaded the agent", async () => {
    const user = await server.registerUser();
    const progress = async () => (await server.call("GET", "/api/settings/system-status", { token: user.token })).body.install;
    const before = await progress();
    expect(before).toMatchObject({ scriptFetchedAt: null, downloadedAt: null });
    const target = join(work, "installed-marked");
    const { code, stdout } = await runInstaller({ PATH: fakeBin("marked"), DBVAULT_INSTALL_DIR: target }, undefined, `${base}/install.sh?for=${before.mark}`);
    expect(code).toBe(0);
    expect(stdout).toContain(`downloading ${base}/downloads/dbvault-agent-linux-x64?for=${before.mark}`);
    const after = await progress();
    expect(after.scriptFetchedAt).not.toBeNull();
    expect(after.downloadedAt).not.toBeNull();

    // A mark this server did not make changes nothing, and is not written into the script.
    const other = await server.registerUser();
    const forged = `${other.id}.${"0".repeat(16)}`;
    const script = await (await fetch(`${base}/install.sh?for=${forged}`)).text();
    expect(script).not.toContain(forged);
    await fetch(`${base}/downloads/dbvault-agent-linux-x64?for=${forged}`);
    expect((await server.call("GET", "/api/settings/system-status", { token: other.token })).body.install).toMatchObject({
      scriptFetchedAt: null,
      downloadedAt: null,
    });
  });

  test("without DBVAULT_INSTALL_DIR and no write access to /usr/local/bin, says so and uses ~/.local/bin", async () => {
    // Root may write anywhere: run the installer as an unprivileged user, as most users would.
    const home = mkdtempSync(join(tmpdir(), "dbvault-install-home-"));
    chmodSync(home, 0o777);
    const env = { PATH: fakeBin("home"), HOME: home, DBVAULT_URL: base };
    // runuser sets HOME to the user's own: `env` puts the test's back.
    const asUser =
      process.getuid?.() === 0 ? [Bun.which("runuser")!, "-u", "nobody", "--", "/usr/bin/env", ...Object.entries(env).map(([k, v]) => `${k}=${v}`)] : [];
    const script = await (await fetch(`${base}/install.sh`)).text();
    const child = Bun.spawn([...asUser, "/bin/sh", "-s"], { stdin: new Blob([script]), stdout: "pipe", stderr: "pipe", env });
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    try {
      expect(stderr).toBe("");
      expect(code).toBe(0);
      expect(stdout).toContain(`no write access to /usr/local/bin: installing into ${home}/.local/bin (run with sudo to install system-wide)`);
      expect(sha256(readFileSync(join(home, ".local/bin/dbvault-agent")))).toBe(sha256(binary));
      expect(stdout).toContain(`note: ${home}/.local/bin is not on your PATH`);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("a binary replaced in the server's storage after the script was served is not sent, and nothing is installed", async () => {
    const target = join(work, "replaced");
    const script = await (await fetch(`${base}/install.sh`)).text();
    writeFileSync(join(agentDir, "dbvault-agent-linux-x64"), randomBytes(1000));
    try {
      const child = Bun.spawn(["/bin/sh", "-s"], {
        stdin: new Blob([script]),
        stderr: "pipe",
        stdout: "pipe",
        env: { PATH: fakeBin("replaced"), HOME: work, DBVAULT_URL: base, DBVAULT_INSTALL_DIR: target },
      });
      const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
      expect(code).toBe(1);
      expect(stderr).toContain(`dbvault-install: error: the download from ${base}/downloads/dbvault-agent-linux-x64 failed`);
      expect(Bun.spawnSync(["ls", "-A", target]).stdout.toString()).toBe("");
    } finally {
      writeFileSync(join(agentDir, "dbvault-agent-linux-x64"), binary);
    }
  });

  test("refuses a download whose checksum does not match, and installs nothing", async () => {
    const target = join(work, "mismatch");
    // The checksum changed on the script's way (no openssl here to catch it by the signature).
    const script = (await (await fetch(`${base}/install.sh`)).text()).replace(sha256(binary), "0".repeat(64));
    {
      const child = Bun.spawn(["/bin/sh", "-s"], {
        stdin: new Blob([script]),
        stderr: "pipe",
        stdout: "pipe",
        env: { PATH: fakeBin("mismatch", { omit: ["openssl"] }), HOME: work, DBVAULT_URL: base, DBVAULT_INSTALL_DIR: target },
      });
      const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
      expect(code).toBe(1);
      expect(stderr).toContain("dbvault-install: error: checksum mismatch");
      expect(stderr).toContain("nothing was installed");
      expect(Bun.spawnSync(["ls", "-A", target]).stdout.toString()).toBe("");
    }
  });

  test("refuses a platform the server does not offer, naming what it offers", async () => {
    const arm = await runInstaller({
      PATH: fakeBin("arm", { shims: { uname: '[ "$1" = -m ] && echo aarch64 || echo Linux' } }),
      DBVAULT_INSTALL_DIR: join(work, "arm"),
    });
    expect(arm.code).toBe(1);
    expect(arm.stderr).toContain("this server offers no agent for linux-arm64 (offered: linux-x64)");
    const bsd = await runInstaller({
      PATH: fakeBin("bsd", { shims: { uname: '[ "$1" = -m ] && echo x86_64 || echo FreeBSD' } }),
      DBVAULT_INSTALL_DIR: join(work, "bsd"),
    });
    expect(bsd.code).toBe(1);
    expect(bsd.stderr).toContain("no DBVault agent for FreeBSD on this server (offered: linux-x64)");
    const musl = await runInstaller({
      PATH: fakeBin("musl", { shims: { ldd: "echo 'musl libc (x86_64)' >&2" } }),
      DBVAULT_INSTALL_DIR: join(work, "musl"),
    });
    expect(musl.code).toBe(1);
    expect(musl.stderr).toContain("this server offers no agent for linux-x64-musl (offered: linux-x64)");
  });

  test("picks each Linux target from uname and the C library", async () => {
    const builds: Record<string, Buffer> = {};
    for (const id of ["linux-arm64", "linux-x64-musl", "linux-arm64-musl"]) {
      builds[id] = randomBytes(3000);
      writeFileSync(join(agentDir, `dbvault-agent-${id}`), builds[id]!);
    }
    builds["linux-x64"] = binary;
    await signAgentDir(agentDir, key, {
      ...LINUX_X64,
      ...Object.fromEntries(
        Object.keys(builds)
          .filter((id) => id !== "linux-x64")
          .map((id) => [`dbvault-agent-${id}`, { platform: id }]),
      ),
    });
    try {
      const machines = { "linux-x64": "x86_64", "linux-arm64": "aarch64", "linux-x64-musl": "x86_64", "linux-arm64-musl": "aarch64" };
      for (const [id, machine] of Object.entries(machines)) {
        const musl = id.endsWith("-musl");
        const shims: Record<string, string> = {
          uname: `[ "$1" = -m ] && echo ${machine} || echo Linux`,
          ldd: musl ? "echo 'musl libc' >&2" : "echo 'ldd (Debian GLIBC 2.36) 2.36'",
        };
        const target = join(work, `target-${id}`);
        const { code, stderr } = await runInstaller({ PATH: fakeBin(`target-${id}`, { shims }), DBVAULT_INSTALL_DIR: target });
        expect({ id, code, stderr }).toEqual({ id, code: 0, stderr: "" });
        expect(sha256(readFileSync(join(target, "dbvault-agent")))).toBe(sha256(builds[id]!));
      }
    } finally {
      for (const id of ["linux-arm64", "linux-x64-musl", "linux-arm64-musl"]) rmSync(join(agentDir, `dbvault-agent-${id}`));
      await signAgentDir(agentDir, key, LINUX_X64);
    }
  });

  test("refuses clearly when neither curl nor wget is installed", async () => {
    const { stderr, code } = await runInstaller({ PATH: fakeBin("nofetch", { omit: ["curl", "wget"] }), DBVAULT_INSTALL_DIR: join(work, "nofetch") });
    expect(code).toBe(1);
    expect(stderr).toContain("dbvault-install: error: neither curl nor wget is installed");
  });

  test("works with wget when curl is missing", async () => {
    const target = join(work, "wget");
    const { code, stderr } = await runInstaller({ PATH: fakeBin("wget", { omit: ["curl"] }), DBVAULT_INSTALL_DIR: target });
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(sha256(readFileSync(join(target, "dbvault-agent")))).toBe(sha256(binary));
  });

  test("checks the release manifest's signature with openssl and names the key", async () => {
    const target = join(work, "signed");
    const { publicKey } = await (await fetch(`${base}/api/agent/releases`)).json();
    const { stdout, stderr, code } = await runInstaller({ PATH: fakeBin("signed"), DBVAULT_INSTALL_DIR: target });
    expect({ stderr, code }).toEqual({ stderr: "", code: 0 });
    expect(stdout).toContain(`installed ${target}/dbvault-agent (SHA-256 ${sha256(binary)}, signed with release key ${publicKey})`);
  });

  test("refuses a manifest the pinned release key did not sign, and installs nothing", async () => {
    const target = join(work, "other-key");
    const otherKey = encodePublicKey(generateKeyPairSync("ed25519").privateKey);
    const { stderr, code } = await runInstaller({ PATH: fakeBin("other-key"), DBVAULT_INSTALL_DIR: target, DBVAULT_RELEASE_KEY: otherKey });
    expect(code).toBe(1);
    expect(stderr).toContain(
      `dbvault-install: error: the release manifest's signature does not match the release signing key ${otherKey}: nothing was installed`,
    );
    expect(existsSync(target)).toBe(false);
  });

  test("refuses a script whose checksum was swapped on its way (binary and manifest line both replaced)", async () => {
    const target = join(work, "swapped");
    const evil = randomBytes(4000);
    try {
      const swap = (script: string) => script.replace(`${sha256(binary)} ${binary.byteLength}`, `${sha256(evil)} ${evil.byteLength}`);
      const { stderr, code } = await runInstaller({ PATH: fakeBin("swapped"), DBVAULT_INSTALL_DIR: target }, (script) => {
        expect(swap(script)).not.toBe(script);
        writeFileSync(join(agentDir, "dbvault-agent-linux-x64"), evil);
        return swap(script);
      });
      expect(code).toBe(1);
      expect(stderr).toContain("the release manifest's signature does not match");
      expect(existsSync(join(target, "dbvault-agent"))).toBe(false);
    } finally {
      writeFileSync(join(agentDir, "dbvault-agent-linux-x64"), binary);
    }
  });

  test("without openssl it installs on the SHA-256 alone and says the signature was not checked; a pinned key then refuses", async () => {
    const target = join(work, "no-openssl");
    const unsigned = await runInstaller({ PATH: fakeBin("no-openssl", { omit: ["openssl"] }), DBVAULT_INSTALL_DIR: target });
    expect({ stderr: unsigned.stderr, code: unsigned.code }).toEqual({ stderr: "", code: 0 });
    expect(unsigned.stdout).toContain(`installed ${target}/dbvault-agent (SHA-256 ${sha256(binary)})\n`);
    expect(unsigned.stdout).toContain("note: the release manifest's signature was not checked: that needs OpenSSL 3 (openssl pkeyutl -rawin)");
    const { publicKey } = await (await fetch(`${base}/api/agent/releases`)).json();
    const pinned = await runInstaller({
      PATH: join(work, "bin-no-openssl"),
      DBVAULT_INSTALL_DIR: join(work, "no-openssl-pinned"),
      DBVAULT_RELEASE_KEY: publicKey,
    });
    expect(pinned.code).toBe(1);
    expect(pinned.stderr).toContain("DBVAULT_RELEASE_KEY is set but this machine cannot check Ed25519 signatures: nothing was installed");
  });

  test("on Windows shells (Git Bash, MSYS) it points to the PowerShell installer", async () => {
    const { stderr, code } = await runInstaller({ PATH: fakeBin("mingw", { shims: { uname: '[ "$1" = -m ] && echo x86_64 || echo MINGW64_NT-10.0-19045' } }) });
    expect(code).toBe(1);
    expect(stderr).toContain("this is Windows: install the agent from PowerShell instead");
    expect(stderr).toContain(`hint: irm ${base}/install.ps1 | iex`);
  });
});
