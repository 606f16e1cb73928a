// The update's decisions and its file replacement, on real files in a temporary folder. The
// Windows replacement (move the running file aside, then rename) runs here too: POSIX allows the
// same renames, so the sequence and its roll-back are checked on any machine.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, generateKeyPairSync, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodePublicKey, renderManifest, signManifest } from "../../../protocol/release-manifest";
import { EXIT } from "../cli-error.ts";
import { UpdateError } from "./errors.ts";
import { checkRelease } from "./release-check.ts";
import { removeUpdateLeftovers, replaceBinary } from "./replace-binary.ts";
import { chooseRestart, RELAUNCHED_ENV, restartAgent } from "./restart.ts";

const { privateKey } = generateKeyPairSync("ed25519");
const publicKey = encodePublicKey(privateKey);
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

function release(entries: { platform: string; version: string }[], key = privateKey) {
  const manifest = renderManifest(entries.map((e) => ({ ...e, fileName: `dbvault-agent-${e.platform}`, sha256: "a".repeat(64), size: 10 })));
  return { version: entries[0]?.version ?? "1.0.0", publicKey, manifest, signature: signManifest(manifest, key) };
}

describe("checkRelease", () => {
  const current = { version: "1.2.0", platform: "linux-arm64-musl" };

  test("a newer version for this very platform is an update; the same or an older one is not", () => {
    const offered = release([
      { platform: "linux-arm64", version: "9.0.0" },
      { platform: "linux-arm64-musl", version: "1.2.1" },
    ]);
    expect(checkRelease(offered, current, publicKey)).toMatchObject({ kind: "available", entry: { platform: "linux-arm64-musl", version: "1.2.1" } });
    expect(checkRelease(release([{ platform: "linux-arm64-musl", version: "1.2.0" }]), current, publicKey)).toEqual({ kind: "up-to-date", offered: "1.2.0" });
    // A replayed old manifest cannot downgrade an agent.
    expect(checkRelease(release([{ platform: "linux-arm64-musl", version: "1.1.9" }]), current, publicKey)).toEqual({ kind: "up-to-date", offered: "1.1.9" });
    expect(checkRelease(release([{ platform: "linux-arm64-musl", version: "1.2.0-rc.1" }]), current, publicKey).kind).toBe("up-to-date");
  });

  test("refuses a manifest changed after signing, one signed by another key, and a server whose key changed", () => {
    const offered = release([{ platform: "linux-arm64-musl", version: "1.3.0" }]);
    const tampered = { ...offered, manifest: offered.manifest.replace("a".repeat(64), "b".repeat(64)) };
    expect(() => checkRelease(tampered, current, publicKey)).toThrow(
      "the release manifest's signature does not match this server's release signing key: nothing was installed",
    );
    const forged = release([{ platform: "linux-arm64-musl", version: "1.3.0" }], generateKeyPairSync("ed25519").privateKey);
    expect(() => checkRelease(forged, current, publicKey)).toThrow(UpdateError);
    const otherKey = encodePublicKey(generateKeyPairSync("ed25519").privateKey);
    expect(() => checkRelease(offered, current, otherKey)).toThrow(
      `the server now signs releases with another key (${publicKey}) than the one this agent trusts (${otherKey})`,
    );
    // With no key pinned yet (an older config), the server's own key is used, and must verify.
    expect(checkRelease(offered, current, undefined).kind).toBe("available");
    expect(() => checkRelease(tampered, current, undefined)).toThrow(UpdateError);
  });

  test("says what is missing: no build for this platform, or an agent run from source", () => {
    const offered = release([
      { platform: "linux-x64", version: "2.0.0" },
      { platform: "windows-x64", version: "2.0.0" },
    ]);
    expect(() => checkRelease(offered, current, publicKey)).toThrow("the server offers no agent for linux-arm64-musl (offered: linux-x64, windows-x64)");
    expect(() => checkRelease(offered, { version: "1.0.0", platform: null }, publicKey)).toThrow("this agent runs from source");
    // A server with no signed release (none built, or not signed with its key) sends no signature.
    const unsigned = { version: "1.0.0", publicKey, manifest: renderManifest([]), signature: "" };
    expect(() => checkRelease(unsigned, current, publicKey)).toThrow("the server offers no signed agent release: nothing was installed");
  });
});

describe("replaceBinary", () => {
  let dir: string;
  const script = (version: string) => `#!/bin/sh\n[ "$1" = version ] && echo "dbvault-agent ${version} (linux-x64, test)"\n`;
  const streamOf = (text: string) => new Blob([text]).stream();
  const installed = () => {
    const target = join(dir, `agent-${randomBytes(3).toString("hex")}`);
    writeFileSync(target, script("1.0.0"));
    chmodSync(target, 0o750);
    return target;
  };
  const expected = (text: string, version: string) => ({ sha256: sha256(new TextEncoder().encode(text)), size: Buffer.byteLength(text), version });
  beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), "dbvault-replace-"))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("installs the checked file in place, keeping the old one's mode, and leaves nothing beside it", async () => {
    const target = installed();
    const next = script("1.1.0");
    await replaceBinary({ target, family: "linux", body: streamOf(next), expected: expected(next, "1.1.0") });
    expect(readFileSync(target, "utf8")).toBe(next);
    expect(Bun.spawnSync([target, "version"]).stdout.toString()).toStartWith("dbvault-agent 1.1.0 (");
    expect(Bun.file(target).size).toBe(Buffer.byteLength(next));
    expect((await import("node:fs")).statSync(target).mode & 0o777).toBe(0o750);
    expect(readdirSync(dir).filter((name) => name.startsWith(".dbvault-agent.update-"))).toEqual([]);
  });

  test("a download that differs from the manifest, is too long, or is not the announced version changes nothing", async () => {
    const target = installed();
    const next = script("1.1.0");
    const cases: [ReadableStream<Uint8Array>, ReturnType<typeof expected>, string][] = [
      [streamOf(next.replace("1.1.0", "6.6.6")), expected(next, "1.1.0"), "does not match the signed release manifest"],
      [streamOf(`${next}# more`), expected(next, "1.1.0"), "larger than the signed manifest says"],
      [streamOf(next), expected(next, "1.2.0"), "the new version does not run on this machine (dbvault-agent 1.1.0 (linux-x64, test))"],
      [streamOf("not a program"), expected("not a program", "1.1.0"), "the new version does not"],
    ];
    for (const [body, wanted, message] of cases) {
      const refused = await replaceBinary({ target, family: "linux", body, expected: wanted }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(UpdateError);
      expect((refused as Error).message).toContain(message);
      expect(readFileSync(target, "utf8")).toBe(script("1.0.0"));
    }
    expect(readdirSync(dir).filter((name) => name.startsWith(".dbvault-agent.update-"))).toEqual([]);
  });

  test("Windows: the running file is moved aside, the new one takes its name, and a later start removes the old one", async () => {
    const target = installed();
    const next = script("1.1.0");
    await replaceBinary({ target, family: "windows", body: streamOf(next), expected: expected(next, "1.1.0") });
    expect(readFileSync(target, "utf8")).toBe(next);
    const aside = readdirSync(dir).filter((name) => name.startsWith(`${target.split("/").at(-1)}.old-`));
    expect(aside.length).toBe(1);
    expect(readFileSync(join(dir, aside[0]!), "utf8")).toBe(script("1.0.0"));
    expect(await removeUpdateLeftovers(target)).toEqual(aside);
    expect(existsSync(join(dir, aside[0]!))).toBe(false);
  });
});

describe("restart", () => {
  const plan = { executable: "/opt/dbvault-agent", args: ["run"], env: {}, family: "linux" as const };

  test("in place on Linux and macOS; a relauncher on Windows; a relauncher's child exits to it", () => {
    expect(chooseRestart(plan)).toBe("execve");
    expect(chooseRestart({ ...plan, family: "darwin" })).toBe("execve");
    expect(chooseRestart({ ...plan, family: "windows" })).toBe("relaunch");
    expect(chooseRestart({ ...plan, env: { DBVAULT_RESTART: "relaunch" } })).toBe("relaunch");
    expect(chooseRestart({ ...plan, family: "windows", env: { [RELAUNCHED_ENV]: "1" } })).toBe("exit-to-relauncher");
  });

  test("the relauncher runs the binary again each time it exits with EXIT.restart, and ends with its last status", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dbvault-relaunch-"));
    try {
      // Exits 75 twice (two updates), then 0; counts its runs in a file.
      const program = join(dir, "agent.sh");
      writeFileSync(
        program,
        `#!/bin/sh\necho run >> ${dir}/runs\n[ "$(wc -l < ${dir}/runs)" -lt 3 ] && exit ${EXIT.restart}\n[ "$${RELAUNCHED_ENV}" = 1 ] && exit 0\nexit 9\n`,
      );
      chmodSync(program, 0o755);
      const code = await restartAgent({ executable: program, args: [], env: { PATH: process.env.PATH }, family: "windows" }, () => () => {});
      expect(code).toBe(0);
      expect(readFileSync(join(dir, "runs"), "utf8").trim().split("\n").length).toBe(3);
      expect(await restartAgent({ ...plan, env: { [RELAUNCHED_ENV]: "1" } }, () => () => {})).toBe(EXIT.restart);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
