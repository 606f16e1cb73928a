// The agent downloads over real HTTP on loopback: binaries with their SHA-256, compressed when the
// client accepts it, the release manifest as the build signed it (the server signs nothing: a file
// replaced or added in AGENT_DIR is not offered, and what is sent is checked as it is sent) and the
// Windows installer. The "binaries" are bytes written into a temporary AGENT_DIR and signed with a
// test key (testkit/signed-agent-release.ts), so no agent build is needed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, zstdDecompressSync } from "node:zlib";
import { AGENT_BUILD_RECORD } from "@protocol/agent-builds";
import { parseManifest, verifyManifest } from "@protocol/release-manifest";
import { SIGNED_RELEASE_FILE } from "@protocol/signed-release";
import { createTestReleaseKey, signAgentDir } from "../../testkit/signed-agent-release";
import { startTestServer, type TestServer } from "./harness";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

let server: TestServer;
let base: string;
let agentDir: string;
const key = createTestReleaseKey();
// Compressible, like a real binary: half random, half repeated.
const linux = Buffer.concat([randomBytes(100_000), Buffer.alloc(100_000, 7)]);
const arm = randomBytes(3_000);
const windows = randomBytes(2_000);
const SIGNED = {
  "dbvault-agent-linux-x64": { platform: "linux-x64", version: "1.0.0" },
  "dbvault-agent-linux-arm64": { platform: "linux-arm64", version: "1.0.1" },
  "dbvault-agent-windows-x64.exe": { platform: "windows-x64", version: "1.0.1" },
};

beforeAll(async () => {
  agentDir = mkdtempSync(join(tmpdir(), "dbvault-agent-dir-"));
  writeFileSync(join(agentDir, "dbvault-agent-linux-x64"), linux);
  writeFileSync(join(agentDir, "dbvault-agent-linux-arm64"), arm);
  writeFileSync(join(agentDir, "dbvault-agent-windows-x64.exe"), windows);
  await signAgentDir(agentDir, key, SIGNED);
  server = await startTestServer({ AGENT_DIR: agentDir, RELEASE_PUBLIC_KEY: key.publicKey });
  base = server.listen();
}, 60_000);
afterAll(async () => {
  await server.close();
  rmSync(agentDir, { recursive: true, force: true });
});

const releases = async () => (await fetch(`${base}/api/agent/releases`)).json();
const offeredPlatforms = async () => ((await releases()).platforms as { platform: string }[]).map((p) => p.platform);

const download = (file: string, acceptEncoding: string) =>
  fetch(`${base}/downloads/${file}`, { headers: { "accept-encoding": acceptEncoding }, decompress: false });

describe("downloads", () => {
  test("without compression: the binary, its length and its SHA-256", async () => {
    const res = await download("dbvault-agent-linux-x64", "identity");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-encoding")).toBeNull();
    expect(res.headers.get("x-content-sha256")).toBe(sha256(linux));
    expect(sha256(new Uint8Array(await res.arrayBuffer()))).toBe(sha256(linux));
  });

  test("zstd when accepted, else gzip: smaller on the wire, the same binary decoded, X-Content-SHA256 of the binary", async () => {
    const zstd = await download("dbvault-agent-linux-x64", "gzip, deflate, br, zstd");
    expect(zstd.headers.get("content-encoding")).toBe("zstd");
    expect(zstd.headers.get("vary")).toContain("Accept-Encoding");
    const zstdBytes = new Uint8Array(await zstd.arrayBuffer());
    expect(zstdBytes.byteLength).toBeLessThan(linux.byteLength * 0.6);
    expect(sha256(zstdDecompressSync(zstdBytes))).toBe(sha256(linux));
    expect(zstd.headers.get("x-content-sha256")).toBe(sha256(linux));

    const gzip = await download("dbvault-agent-linux-x64", "gzip;q=1.0, zstd;q=0");
    expect(gzip.headers.get("content-encoding")).toBe("gzip");
    const gzipBytes = new Uint8Array(await gzip.arrayBuffer());
    expect(gzipBytes.byteLength).toBeLessThan(linux.byteLength * 0.6);
    expect(sha256(gunzipSync(gzipBytes))).toBe(sha256(linux));

    // Made once and kept in the data directory, named by the binary's checksum.
    const cached = readdirSync(join(server.ctx.config.dataDir, "cache", "agent-downloads")).sort();
    expect(cached).toEqual([`${sha256(linux)}.gz`, `${sha256(linux)}.zst`]);
    // Bun's own fetch (as the agent's update uses) decodes it by itself.
    expect(sha256(new Uint8Array(await (await fetch(`${base}/downloads/dbvault-agent-linux-x64`)).arrayBuffer()))).toBe(sha256(linux));
  });

  test("an unknown name or a platform this server has no build for gets a JSON 404 naming what it has", async () => {
    const offered = ["dbvault-agent-linux-x64", "dbvault-agent-linux-arm64", "dbvault-agent-windows-x64.exe"];
    const unknown = await fetch(`${base}/downloads/dbvault-agent-plan9-x64`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({
      message: `There is no download named dbvault-agent-plan9-x64. This server offers: ${offered.join(", ")}.`,
      offered,
    });
    const notBuilt = await fetch(`${base}/downloads/dbvault-agent-darwin-arm64`);
    expect(notBuilt.status).toBe(404);
    expect((await notBuilt.json()).message).toBe(`The darwin-arm64 agent has not been built on this server. This server offers: ${offered.join(", ")}.`);
  });
});

describe("releases", () => {
  test("lists each signed binary with its URL, checksum, size and version, and hands out the manifest exactly as the build signed it", async () => {
    const res = await fetch(`${base}/api/agent/releases`);
    expect(res.status).toBe(200);
    const body = await res.json();
    // PUBLIC_URL is not set here: the URLs are the address the request came to.
    const url = (file: string) => `${base}/downloads/${file}`;
    expect(body.platforms).toEqual([
      {
        platform: "linux-x64",
        os: "linux",
        arch: "x64",
        libc: "glibc",
        url: url("dbvault-agent-linux-x64"),
        sha256: sha256(linux),
        size: linux.byteLength,
        version: "1.0.0",
      },
      {
        platform: "linux-arm64",
        os: "linux",
        arch: "arm64",
        libc: "glibc",
        url: url("dbvault-agent-linux-arm64"),
        sha256: sha256(arm),
        size: arm.byteLength,
        version: "1.0.1",
      },
      {
        platform: "windows-x64",
        os: "windows",
        arch: "x64",
        url: url("dbvault-agent-windows-x64.exe"),
        sha256: sha256(windows),
        size: windows.byteLength,
        version: "1.0.1",
      },
    ]);
    expect(body.version).toBe("1.0.1");
    expect(body.installScript).toBe(`${base}/install.sh`);
    expect(body.installPowerShell).toBe(`${base}/install.ps1`);
    expect(body.publicKey).toBe(key.publicKey);
    const signed = JSON.parse(readFileSync(join(agentDir, SIGNED_RELEASE_FILE), "utf8"));
    expect({ manifest: body.manifest, signature: body.signature }).toEqual({ manifest: signed.manifest, signature: signed.signature });
    expect(verifyManifest(body.manifest, body.signature, key.publicKey).map((entry) => entry.platform)).toEqual(["linux-x64", "linux-arm64", "windows-x64"]);
    // One changed character and the signature no longer holds.
    expect(() => verifyManifest(body.manifest.replace("1.0.1", "1.0.2"), body.signature, body.publicKey)).toThrow("signature does not match");
  });

  test("the probe: a binary replaced with its line in agent-release.json, a file no build made, a deleted record: none is offered or signed", async () => {
    const armPath = join(agentDir, "dbvault-agent-linux-arm64");
    const macPath = join(agentDir, "dbvault-agent-darwin-arm64");
    const script = Buffer.from("#!/bin/sh\necho pwned > /tmp/dbvault-probe\n");
    writeFileSync(armPath, script);
    writeFileSync(macPath, randomBytes(500));
    writeFileSync(
      join(agentDir, AGENT_BUILD_RECORD),
      JSON.stringify({ "dbvault-agent-linux-arm64": { platform: "linux-arm64", version: "1.0.2", sha256: sha256(script), size: script.byteLength } }),
    );
    try {
      const body = await releases();
      expect(body.platforms.map((p: { platform: string }) => p.platform)).toEqual(["linux-x64", "windows-x64"]);
      expect(body.version).toBe("1.0.1");
      // The manifest is still the build's: no line vouches for the script or the unbuilt file.
      const lines = verifyManifest(body.manifest, body.signature, key.publicKey);
      expect(lines.find((line) => line.platform === "linux-arm64")).toMatchObject({ version: "1.0.1", sha256: sha256(arm) });
      expect(body.manifest).not.toContain(sha256(script));
      expect(lines.some((line) => line.platform === "darwin-arm64")).toBe(false);
      expect((await fetch(`${base}/downloads/dbvault-agent-linux-arm64`)).status).toBe(404);
      expect((await fetch(`${base}/downloads/dbvault-agent-darwin-arm64`)).status).toBe(404);
      const installer = await (await fetch(`${base}/install.sh`)).text();
      expect(installer).not.toContain(sha256(script));
      expect(installer).not.toContain("1.0.2");

      // The record removed: what is offered does not change, since the server never read it.
      rmSync(join(agentDir, AGENT_BUILD_RECORD));
      expect(await offeredPlatforms()).toEqual(["linux-x64", "windows-x64"]);
    } finally {
      writeFileSync(armPath, arm);
      rmSync(macPath);
    }
    expect(await offeredPlatforms()).toEqual(["linux-x64", "linux-arm64", "windows-x64"]);

    // The signed release removed: nothing is offered at once (no answer is kept from before).
    const signed = readFileSync(join(agentDir, SIGNED_RELEASE_FILE));
    rmSync(join(agentDir, SIGNED_RELEASE_FILE));
    try {
      const body = await releases();
      expect(body).toMatchObject({ platforms: [], manifest: "dbvault-agent-release 1\n", signature: "", publicKey: key.publicKey });
      expect((await fetch(`${base}/downloads/dbvault-agent-linux-x64`)).status).toBe(404);
    } finally {
      writeFileSync(join(agentDir, SIGNED_RELEASE_FILE), signed);
    }
  });

  test("a release signed with another key (written into AGENT_DIR by whoever can write there) is not offered", async () => {
    const signed = readFileSync(join(agentDir, SIGNED_RELEASE_FILE));
    const evil = Buffer.from("#!/bin/sh\necho pwned\n");
    writeFileSync(join(agentDir, "dbvault-agent-linux-arm64"), evil);
    await signAgentDir(agentDir, createTestReleaseKey(), { "dbvault-agent-linux-arm64": { platform: "linux-arm64", version: "9.9.9" } });
    try {
      const body = await releases();
      expect(body).toMatchObject({ platforms: [], signature: "", publicKey: key.publicKey });
      expect((await fetch(`${base}/downloads/dbvault-agent-linux-arm64`)).status).toBe(404);
    } finally {
      writeFileSync(join(agentDir, SIGNED_RELEASE_FILE), signed);
      writeFileSync(join(agentDir, "dbvault-agent-linux-arm64"), arm);
    }
  });

  test("the trusted key: RELEASE_PUBLIC_KEY, else the public half of RELEASE_SIGNING_KEY, else the data directory's (kept across restarts); the server holds no other", async () => {
    const seed = Buffer.from(key.privateKey.export({ format: "der", type: "pkcs8" }))
      .subarray(-32)
      .toString("base64");
    const configured = await startTestServer({ AGENT_DIR: agentDir, RELEASE_SIGNING_KEY: seed });
    try {
      const body = (await configured.call("GET", "/api/agent/releases")).body;
      expect(body.publicKey).toBe(key.publicKey);
      expect(body.platforms).toHaveLength(3);
      // A configured key is not written down.
      const secretsFile = join(configured.ctx.config.dataDir, "secrets.json");
      expect(existsSync(secretsFile) && (await Bun.file(secretsFile).json()).releaseSigningKey).toBeFalsy();
    } finally {
      await configured.close();
    }
    // With RELEASE_PUBLIC_KEY the server keeps no signing key at all.
    const secretsFile = join(server.ctx.config.dataDir, "secrets.json");
    expect((await Bun.file(secretsFile).json()).releaseSigningKey).toBeUndefined();

    const unconfigured = await startTestServer({ AGENT_DIR: agentDir });
    try {
      const before = (await unconfigured.call("GET", "/api/agent/releases")).body;
      expect(before.publicKey).not.toBe(key.publicKey);
      expect(before.platforms).toEqual([]);
      await unconfigured.restart();
      expect((await unconfigured.call("GET", "/api/agent/releases")).body.publicKey).toBe(before.publicKey);
    } finally {
      await unconfigured.close();
    }
  }, 60_000);

  test("a binary altered in storage (same size and time) is no longer offered: a write changes its change time, so it is hashed again", async () => {
    const path = join(agentDir, "dbvault-agent-linux-arm64");
    const time = new Date(Math.floor(Date.now() / 1000) * 1000 - 120_000);
    utimesSync(path, time, time);
    expect(await offeredPlatforms()).toContain("linux-arm64");
    const altered = Buffer.from(arm);
    altered[0] = altered[0]! ^ 1;
    writeFileSync(path, altered);
    utimesSync(path, time, time);
    try {
      expect(await offeredPlatforms()).not.toContain("linux-arm64");
      expect((await download("dbvault-agent-linux-arm64", "zstd, gzip")).status).toBe(404);
      expect(readdirSync(join(server.ctx.config.dataDir, "cache", "agent-downloads")).some((name) => name.startsWith(sha256(arm)))).toBe(false);
    } finally {
      writeFileSync(path, arm);
      utimesSync(path, time, time);
    }
    expect(await offeredPlatforms()).toContain("linux-arm64");
  });

  test("a binary changed while it is being sent, or its compressed copy changed in the data directory, is cut short: never delivered whole", async () => {
    // Large enough that the server is still reading the file when it is changed.
    const big = randomBytes(24 * 1024 * 1024);
    const path = join(agentDir, "dbvault-agent-darwin-x64");
    writeFileSync(path, big);
    const signed = readFileSync(join(agentDir, SIGNED_RELEASE_FILE));
    await signAgentDir(agentDir, key, { ...SIGNED, "dbvault-agent-darwin-x64": { platform: "darwin-x64" } });
    try {
      expect(await offeredPlatforms()).toContain("darwin-x64");
      const res = await download("dbvault-agent-darwin-x64", "identity");
      expect(res.headers.get("x-content-sha256")).toBe(sha256(big));
      const reader = res.body!.getReader();
      await reader.read();
      const changed = Buffer.from(big);
      changed[changed.length - 1] = changed[changed.length - 1]! ^ 1;
      writeFileSync(path, changed);
      let received = 0;
      const outcome = await (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return "complete";
          received += value.byteLength;
        }
      })().catch(() => "cut short");
      expect(outcome).toBe("cut short");
      expect(received).toBeLessThan(big.byteLength);
    } finally {
      writeFileSync(join(agentDir, SIGNED_RELEASE_FILE), signed);
      rmSync(path);
    }

    const fine = await download("dbvault-agent-linux-arm64", "zstd");
    expect(fine.headers.get("content-encoding")).toBe("zstd");
    expect(sha256(zstdDecompressSync(new Uint8Array(await fine.arrayBuffer())))).toBe(sha256(arm));
    const copy = join(server.ctx.config.dataDir, "cache", "agent-downloads", `${sha256(arm)}.zst`);
    const bad = readFileSync(copy);
    bad[bad.length - 1] = bad[bad.length - 1]! ^ 1;
    writeFileSync(copy, bad);
    // Cut before or after the headers, depending on how soon the server reads the end.
    const cut = await download("dbvault-agent-linux-arm64", "zstd")
      .then((res) => res.arrayBuffer())
      .then(
        () => "complete",
        () => "cut short",
      );
    expect(cut).toBe("cut short");
  });
});

describe("install.ps1", () => {
  test("downloads the windows-x64 build, checks it against the manifest's SHA-256 and never exits the user's shell", async () => {
    const res = await fetch(`${base}/install.ps1`);
    expect(res.status).toBe(200);
    const script = await res.text();
    expect(script).toContain(`#   irm ${base}/install.ps1 | iex`);
    expect(script).toContain("$file = 'dbvault-agent-windows-x64.exe'");
    expect(script).toContain(`$sha256 = '${sha256(windows)}'`);
    expect(script).toContain("Get-FileHash -Algorithm SHA256");
    expect(script).not.toMatch(/\bexit\b/);
  });

  test("without a Windows build it says which platforms the server offers", async () => {
    rmSync(join(agentDir, "dbvault-agent-windows-x64.exe"));
    try {
      const script = await (await fetch(`${base}/install.ps1`)).text();
      expect(script).toContain("$sha256 = ''");
      expect(script).toContain("this server offers no agent for windows-x64 (offered: linux-x64, linux-arm64)");
    } finally {
      writeFileSync(join(agentDir, "dbvault-agent-windows-x64.exe"), windows);
    }
  });
});
