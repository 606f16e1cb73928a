// The agent downloads over real HTTP on loopback: binaries with their SHA-256, compressed when the
// client accepts it, the signed release manifest, the build record's checksums (a binary altered
// after its build is not offered) and the Windows installer. The "binaries" are bytes written into
// a temporary AGENT_DIR, so no agent build is needed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, zstdDecompressSync } from "node:zlib";
import { AGENT_BUILD_RECORD } from "@protocol/agent-builds";
import { parseManifest, verifyManifest } from "@protocol/release-manifest";
import { startTestServer, type TestServer } from "./harness";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

let server: TestServer;
let base: string;
let agentDir: string;
// Compressible, like a real binary: half random, half repeated.
const linux = Buffer.concat([randomBytes(100_000), Buffer.alloc(100_000, 7)]);
const arm = randomBytes(3_000);
const windows = randomBytes(2_000);

function writeRecord(entries: Record<string, { platform: string; version: string; bytes: Uint8Array }>) {
  const record = Object.fromEntries(
    Object.entries(entries).map(([file, { platform, version, bytes }]) => [file, { platform, version, sha256: sha256(bytes), size: bytes.byteLength }]),
  );
  writeFileSync(join(agentDir, AGENT_BUILD_RECORD), JSON.stringify(record));
}

beforeAll(async () => {
  agentDir = mkdtempSync(join(tmpdir(), "dbvault-agent-dir-"));
  writeFileSync(join(agentDir, "dbvault-agent-linux-x64"), linux);
  writeFileSync(join(agentDir, "dbvault-agent-linux-arm64"), arm);
  writeFileSync(join(agentDir, "dbvault-agent-windows-x64.exe"), windows);
  // linux-x64 has no record (copied in by hand); the other two were built as 1.0.1.
  writeRecord({
    "dbvault-agent-linux-arm64": { platform: "linux-arm64", version: "1.0.1", bytes: arm },
    "dbvault-agent-windows-x64.exe": { platform: "windows-x64", version: "1.0.1", bytes: windows },
  });
  server = await startTestServer({ AGENT_DIR: agentDir });
  base = server.listen();
});
afterAll(async () => {
  await server.close();
  rmSync(agentDir, { recursive: true, force: true });
});

const download = (file: string, acceptEncoding: string) => fetch(`${base}/downloads/${file}`, { headers: { "accept-encoding": acceptEncoding }, decompress: false });

describe("downloads", () => {
  test("without compression: the binary, its length and its SHA-256", async () => {
    const res = await download("dbvault-agent-linux-x64", "identity");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-encoding")).toBeNull();
    expect(res.headers.get("content-length")).toBe(String(linux.byteLength));
    expect(res.headers.get("x-content-sha256")).toBe(sha256(linux));
    expect(sha256(new Uint8Array(await res.arrayBuffer()))).toBe(sha256(linux));
  });

  test("zstd when accepted, else gzip: smaller on the wire, the same binary decoded, X-Content-SHA256 of the binary", async () => {
    const zstd = await download("dbvault-agent-linux-x64", "gzip, deflate, br, zstd");
    expect(zstd.headers.get("content-encoding")).toBe("zstd");
    expect(zstd.headers.get("vary")).toContain("Accept-Encoding");
    const zstdBytes = new Uint8Array(await zstd.arrayBuffer());
    expect(Number(zstd.headers.get("content-length"))).toBe(zstdBytes.byteLength);
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
    expect(await unknown.json()).toMatchObject({ message: `There is no download named dbvault-agent-plan9-x64. This server offers: ${offered.join(", ")}.`, offered });
    const notBuilt = await fetch(`${base}/downloads/dbvault-agent-darwin-arm64`);
    expect(notBuilt.status).toBe(404);
    expect((await notBuilt.json()).message).toBe(`The darwin-arm64 agent has not been built on this server. This server offers: ${offered.join(", ")}.`);
  });
});

describe("releases", () => {
  test("lists each binary with its URL, checksum, size and recorded version, in a manifest signed with the instance's key", async () => {
    const res = await fetch(`${base}/api/agent/releases`);
    expect(res.status).toBe(200);
    const body = await res.json();
    // PUBLIC_URL is not set here: the URLs are the address the request came to.
    const url = (file: string) => `${base}/downloads/${file}`;
    const packageVersion = (await Bun.file(join(import.meta.dir, "../../package.json")).json()).version;
    expect(body.platforms).toEqual([
      { platform: "linux-x64", os: "linux", arch: "x64", libc: "glibc", url: url("dbvault-agent-linux-x64"), sha256: sha256(linux), size: linux.byteLength, version: packageVersion },
      { platform: "linux-arm64", os: "linux", arch: "arm64", libc: "glibc", url: url("dbvault-agent-linux-arm64"), sha256: sha256(arm), size: arm.byteLength, version: "1.0.1" },
      { platform: "windows-x64", os: "windows", arch: "x64", url: url("dbvault-agent-windows-x64.exe"), sha256: sha256(windows), size: windows.byteLength, version: "1.0.1" },
    ]);
    expect(body.version).toBe("1.0.1");
    expect(body.installScript).toBe(`${base}/install.sh`);
    expect(body.installPowerShell).toBe(`${base}/install.ps1`);
    expect(verifyManifest(body.manifest, body.signature, body.publicKey)).toEqual([
      { platform: "linux-x64", fileName: "dbvault-agent-linux-x64", version: packageVersion, sha256: sha256(linux), size: linux.byteLength },
      { platform: "linux-arm64", fileName: "dbvault-agent-linux-arm64", version: "1.0.1", sha256: sha256(arm), size: arm.byteLength },
      { platform: "windows-x64", fileName: "dbvault-agent-windows-x64.exe", version: "1.0.1", sha256: sha256(windows), size: windows.byteLength },
    ]);
    // One changed character and the signature no longer holds.
    expect(() => verifyManifest(body.manifest.replace("1.0.1", "1.0.2"), body.signature, body.publicKey)).toThrow("signature does not match");
  });

  test("the release signing key is the instance's: kept in the data directory across restarts, or RELEASE_SIGNING_KEY", async () => {
    const before = (await (await fetch(`${base}/api/agent/releases`)).json()).publicKey;
    await server.restart();
    const after = (await (await fetch(`${base}/api/agent/releases`)).json()).publicKey;
    expect(after).toBe(before);
    const secrets = await Bun.file(join(server.ctx.config.dataDir, "secrets.json")).json();
    expect(secrets.releaseSigningKey).toMatch(/^[A-Za-z0-9+/]{43}=$/);

    const seed = randomBytes(32).toString("base64");
    const configured = await startTestServer({ AGENT_DIR: agentDir, RELEASE_SIGNING_KEY: seed });
    try {
      const { publicKey } = (await configured.call("GET", "/api/agent/releases")).body;
      expect(publicKey).not.toBe(before);
      const again = await startTestServer({ AGENT_DIR: agentDir, RELEASE_SIGNING_KEY: seed });
      expect((await again.call("GET", "/api/agent/releases")).body.publicKey).toBe(publicKey);
      await again.close();
      // A configured key is not written down.
      expect(existsSync(join(configured.ctx.config.dataDir, "secrets.json")) && (await Bun.file(join(configured.ctx.config.dataDir, "secrets.json")).json()).releaseSigningKey).toBeFalsy();
    } finally {
      await configured.close();
    }
  });

  test("a binary that no longer matches its build record is not offered (altered in storage)", async () => {
    const altered = Buffer.from(arm);
    altered[10] = altered[10]! ^ 1;
    writeFileSync(join(agentDir, "dbvault-agent-linux-arm64"), altered);
    try {
      const { manifest } = (await server.call("GET", "/api/agent/releases")).body;
      expect(parseManifest(manifest).map((entry) => entry.platform)).toEqual(["linux-x64", "windows-x64"]);
      const res = await fetch(`${base}/downloads/dbvault-agent-linux-arm64`);
      expect(res.status).toBe(404);
    } finally {
      writeFileSync(join(agentDir, "dbvault-agent-linux-arm64"), arm);
    }
    // Put back as built (another mtime), it is offered again.
    utimesSync(join(agentDir, "dbvault-agent-linux-arm64"), new Date(), new Date(Date.now() + 5_000));
    const { manifest } = (await server.call("GET", "/api/agent/releases")).body;
    expect(parseManifest(manifest).map((entry) => entry.platform)).toEqual(["linux-x64", "linux-arm64", "windows-x64"]);
  });
  test("a binary altered after the server checked it (same size and time) is sent as it is, for the downloader to refuse, and never cached compressed", async () => {
    const path = join(agentDir, "dbvault-agent-linux-arm64");
    const time = new Date(Math.floor(Date.now() / 1000) * 1000 - 120_000);
    utimesSync(path, time, time);
    const { platforms } = (await server.call("GET", "/api/agent/releases")).body;
    expect(platforms.find((p: { platform: string }) => p.platform === "linux-arm64").sha256).toBe(sha256(arm));
    const altered = Buffer.from(arm);
    altered[0] = altered[0]! ^ 1;
    writeFileSync(path, altered);
    utimesSync(path, time, time);
    try {
      const res = await download("dbvault-agent-linux-arm64", "zstd, gzip");
      expect(res.headers.get("content-encoding")).toBeNull();
      expect(res.headers.get("x-content-sha256")).toBe(sha256(arm));
      expect(sha256(new Uint8Array(await res.arrayBuffer()))).toBe(sha256(altered));
      expect(readdirSync(join(server.ctx.config.dataDir, "cache", "agent-downloads")).some((name) => name.startsWith(sha256(arm)))).toBe(false);
    } finally {
      writeFileSync(path, arm);
      utimesSync(path, time, time);
    }
    const repaired = await download("dbvault-agent-linux-arm64", "zstd");
    expect(repaired.headers.get("content-encoding")).toBe("zstd");
    expect(sha256(zstdDecompressSync(new Uint8Array(await repaired.arrayBuffer())))).toBe(sha256(arm));
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
