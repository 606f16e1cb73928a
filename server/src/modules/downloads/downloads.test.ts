import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { httpBasics } from "../../lib/http";
import { silentLogger } from "../../lib/logger";
import { HOST_PLATFORM_ID } from "@protocol/agent-platforms";
import { parseSignedRelease, SIGNED_RELEASE_FILE } from "@protocol/signed-release";
import { createTestReleaseKey, signAgentDir } from "../../../../testkit/signed-agent-release";
import { createAgentBinaries, HOST_BUILD_FILE } from "./agent-binaries";
import { downloadsController } from "./index";

const emptyDir = mkdtempSync(join(tmpdir(), "dbvault-no-agent-"));
afterAll(() => rmSync(emptyDir, { recursive: true, force: true }));
const key = createTestReleaseKey();

function appWith(binaries: ReturnType<typeof createAgentBinaries>) {
  const ctx = {
    log: silentLogger,
    config: { publicUrl: "https://backups.example.com", agentDir: emptyDir, dataDir: emptyDir },
    releaseKey: { publicKey: key.publicKey, source: "test" },
  } as unknown as AppContext;
  return new Elysia().use(httpBasics(silentLogger)).use(downloadsController(ctx, { binaries }));
}

test("a server whose agent was not built says so instead of serving nothing", async () => {
  const app = appWith(createAgentBinaries({ agentDir: emptyDir, trustedKey: () => key.publicKey, embedded: [] }));
  const res = await app.handle(new Request("http://localhost/downloads/dbvault-agent-linux-x64"));
  expect(res.status).toBe(404);
  expect((await res.json()).message).toBe("The linux-x64 agent has not been built on this server. This server offers: nothing yet (npm run build:agent).");
  const releases = await (await app.handle(new Request("http://localhost/api/agent/releases"))).json();
  expect(releases.platforms).toEqual([]);
  expect(releases).toMatchObject({ publicKey: key.publicKey, manifest: "dbvault-agent-release 1\n", signature: "" });
  expect(releases.installScript).toBe("https://backups.example.com/install.sh");
  const script = await (await app.handle(new Request("http://localhost/install.sh"))).text();
  expect(script).toContain("DBVAULT_URL=${DBVAULT_URL:-'https://backups.example.com'}");
  expect(script).toContain("(offered: none)");
});

test.skipIf(HOST_PLATFORM_ID !== "linux-x64")("the host's own build (dist/dbvault-agent) and the embedded copy stand for its platform when signed", async () => {
  const dir = mkdtempSync(join(tmpdir(), "dbvault-host-agent-"));
  try {
    writeFileSync(join(dir, HOST_BUILD_FILE), "host build");
    const binaries = createAgentBinaries({ agentDir: dir, trustedKey: () => key.publicKey, embedded: [] });
    expect(await binaries.available(await binaries.release())).toEqual([]);
    await signAgentDir(dir, key, { [HOST_BUILD_FILE]: { platform: "linux-x64" } });
    const fromDisk = await binaries.available(await binaries.release());
    expect(fromDisk.map((b) => [b.platform.id, b.size])).toEqual([["linux-x64", 10]]);

    // The single-file server: the binary and the signed release compiled in.
    writeFileSync(join(dir, HOST_BUILD_FILE), "embedded!");
    const signed = await signAgentDir(dir, key, { [HOST_BUILD_FILE]: { platform: "linux-x64" } });
    const embedded = [Object.assign(new Blob(["embedded!"]), { name: HOST_BUILD_FILE }), Object.assign(new Blob([JSON.stringify(signed)]), { name: SIGNED_RELEASE_FILE })];
    const compiled = createAgentBinaries({ agentDir: emptyDir, trustedKey: () => key.publicKey, embedded });
    const fromBinary = await compiled.available(await compiled.release());
    expect(fromBinary.map((b) => [b.platform.id, b.size])).toEqual([["linux-x64", 9]]);
    expect(parseSignedRelease(JSON.stringify(signed))?.publicKey).toBe(key.publicKey);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
