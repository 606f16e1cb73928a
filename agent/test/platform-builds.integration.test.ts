// The agent built for every platform (npm run build:agent -- --all). Each file is checked from its
// own headers: processor, program loader (the C library), Windows subsystem, and for macOS a code
// signature that covers the file (Apple silicon kills a binary whose pages do not match it). The
// linux-arm64 build really runs, under qemu-aarch64-static with Debian's arm64 C library: version,
// key generation, and encrypt/decrypt of real mongodump archives byte for byte. The musl builds
// need a musl C++ runtime Debian does not ship, and macOS and Windows cannot run here.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AGENT_PLATFORMS } from "../../protocol/agent-platforms";
import { readAgentBuildRecord } from "../../protocol/agent-builds";
import { PRODUCT_VERSION } from "../../protocol/version";
import { readExecutable } from "../../scripts/executable-formats";
import { REPO_ROOT } from "./support/run-agent.ts";

const dist = join(REPO_ROOT, "dist");
const fileOf = (id: string) => join(dist, AGENT_PLATFORMS.find((p) => p.id === id)!.fileName);
const headerOf = async (id: string) => readExecutable(await Bun.file(fileOf(id)).bytes());

beforeAll(() => {
  // npm test builds them all first; this only rebuilds what is missing or stale (a second each).
  const build = Bun.spawnSync([process.execPath, join(REPO_ROOT, "scripts/build-agent.ts"), "--all", "--if-stale"], { stdout: "pipe", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`build-agent --all failed: ${build.stderr.toString()}${build.stdout.toString()}`);
}, 600_000);

describe("every platform's build", () => {
  test("is recorded with its platform, this version and its checksum", () => {
    const record = readAgentBuildRecord(dist);
    for (const platform of AGENT_PLATFORMS) {
      const entry = record[platform.fileName];
      expect(entry).toMatchObject({ platform: platform.id, version: PRODUCT_VERSION, size: Bun.file(fileOf(platform.id)).size });
      expect(entry!.sha256).toBe(new Bun.CryptoHasher("sha256").update(readFileSync(fileOf(platform.id))).digest("hex"));
    }
  });

  test("Linux: ELF for the right processor and C library loader", async () => {
    expect(await headerOf("linux-x64")).toEqual({ format: "elf", machine: "x86-64", interpreter: "/lib64/ld-linux-x86-64.so.2" });
    expect(await headerOf("linux-arm64")).toEqual({ format: "elf", machine: "aarch64", interpreter: "/lib/ld-linux-aarch64.so.1" });
    expect(await headerOf("linux-x64-musl")).toEqual({ format: "elf", machine: "x86-64", interpreter: "/lib/ld-musl-x86_64.so.1" });
    expect(await headerOf("linux-arm64-musl")).toEqual({ format: "elf", machine: "aarch64", interpreter: "/lib/ld-musl-aarch64.so.1" });
  });

  test("Windows: a 64-bit console program (PE32+, x86-64)", async () => {
    expect(await headerOf("windows-x64")).toEqual({ format: "pe", machine: "x86-64", pe32plus: true, subsystem: "console" });
  });

  test("macOS: executables for each processor; arm64 signed over the whole file, x64 with no stale signature left", async () => {
    const arm = await headerOf("darwin-arm64");
    expect(arm).toMatchObject({ format: "macho", cpu: "arm64", executable: true, signature: { hash: "sha256", coversWholeFile: true, valid: true } });
    const intel = await headerOf("darwin-x64");
    expect(intel).toMatchObject({ format: "macho", cpu: "x86_64", executable: true });
    // Either Bun signs it properly one day, or the build removed the signature that no longer matched.
    const signature = (intel as { signature: { valid: boolean; coversWholeFile: boolean } | null }).signature;
    expect(signature === null || (signature.valid && signature.coversWholeFile)).toBe(true);
  });

  test("the signature check itself notices one changed byte", async () => {
    const bytes = await Bun.file(fileOf("darwin-arm64")).bytes();
    bytes[bytes.length >> 1] = bytes[bytes.length >> 1]! ^ 1;
    expect(readExecutable(bytes)).toMatchObject({ signature: { valid: false } });
  });
});

const qemu = Bun.which("qemu-aarch64-static");
const arm64Libc = existsSync("/lib/ld-linux-aarch64.so.1");
const whyNoArm64 = !qemu
  ? "qemu-aarch64-static is not installed (apt-get install qemu-user-static; scripts/ensure-system-packages.sh does it)"
  : !arm64Libc
    ? "the arm64 C library is not installed (dpkg --add-architecture arm64 && apt-get update && apt-get install libc6:arm64)"
    : null;
if (whyNoArm64) console.warn(`linux-arm64 build not run: ${whyNoArm64}`);

describe.skipIf(whyNoArm64 !== null)("the linux-arm64 build under qemu-aarch64-static", () => {
  const runArm = (args: string[]) => {
    const run = Bun.spawnSync([qemu!, fileOf("linux-arm64"), ...args], {
      stdout: "pipe",
      stderr: "pipe",
      env: { PATH: "/usr/bin:/bin", HOME: "/nonexistent-home" },
    });
    return { code: run.exitCode, stdout: run.stdout.toString(), stderr: run.stderr.toString() };
  };

  test("reports its version and platform", () => {
    const version = runArm(["version"]);
    expect(version.stdout).toStartWith(`dbvault-agent ${PRODUCT_VERSION} (linux-arm64, bun `);
    expect(version.code).toBe(0);
  }, 120_000);

  test("generates a key, encrypts and decrypts a mongodump archive byte for byte, and reads the golden file", () => {
    const dir = mkdtempSync(join(tmpdir(), "dbvault-arm64-"));
    try {
      const config = join(dir, "agent.json");
      expect(runArm(["key", "generate", "--config", config]).code).toBe(0);
      const archive = join(REPO_ROOT, "agent/test-data/mongodump-archives/modern-5k.archive");
      const sealed = join(dir, "backup.enc.dbvault");
      const opened = join(dir, "backup.archive");
      const encrypted = runArm(["encrypt", "--in", archive, "--out", sealed, "--config", config, "--quiet"]);
      expect(encrypted.stderr).not.toContain("error");
      expect(encrypted.code).toBe(0);
      const decrypted = runArm(["decrypt", "--in", sealed, "--out", opened, "--config", config, "--quiet"]);
      expect(decrypted.code).toBe(0);
      expect(readFileSync(opened).equals(readFileSync(archive))).toBe(true);

      // A file written by the x64 build's format code (the golden file) opens on arm64 too.
      const golden = join(REPO_ROOT, "agent/test-data/golden");
      const goldenConfig = join(dir, "golden.json");
      expect(runArm(["key", "import", "--key-file", join(golden, "test-key.txt"), "--config", goldenConfig]).code).toBe(0);
      const out = join(dir, "golden.archive");
      expect(runArm(["decrypt", "--in", join(golden, "v1-zstd.enc.dbvault"), "--out", out, "--config", goldenConfig, "--quiet"]).code).toBe(0);
      expect(readFileSync(out).equals(readFileSync(join(golden, "plaintext.mongodump-archive")))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
