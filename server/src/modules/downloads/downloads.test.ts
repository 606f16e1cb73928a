import { afterAll, describe, expect, test } from "bun:test";
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

function appWith(binaries: ReturnType<typeof createAgentBinaries>, config: Partial<AppContext["config"]> = {}) {
  const ctx = {
    log: silentLogger,
    config: { publicUrl: "https://backups.example.com", publicUrlSet: true, trustProxyHops: 0, agentDir: emptyDir, dataDir: emptyDir, ...config },
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

test.skipIf(HOST_PLATFORM_ID !== "linux-x64")(
  "the host's own build (dist/dbvault-agent) and the embedded copy stand for its platform when signed",
  async () => {
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
      const embedded = [
        Object.assign(new Blob(["embedded!"]), { name: HOST_BUILD_FILE }),
        Object.assign(new Blob([JSON.stringify(signed)]), { name: SIGNED_RELEASE_FILE }),
      ];
      const compiled = createAgentBinaries({ agentDir: emptyDir, trustedKey: () => key.publicKey, embedded });
      const fromBinary = await compiled.available(await compiled.release());
      expect(fromBinary.map((b) => [b.platform.id, b.size])).toEqual([["linux-x64", 9]]);
      expect(parseSignedRelease(JSON.stringify(signed))?.publicKey).toBe(key.publicKey);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

describe("without PUBLIC_URL, the installers use the address the request came to", () => {
  const unset = { publicUrl: "http://localhost:3000", publicUrlSet: false };
  const fetchFrom = (app: ReturnType<typeof appWith>, path: string, headers: Record<string, string>) =>
    app.handle(new Request(`http://localhost:3000${path}`, { headers }));

  test("the Host of another machine's request", async () => {
    const app = appWith(createAgentBinaries({ agentDir: emptyDir, trustedKey: () => key.publicKey, embedded: [] }), unset);
    const script = await (await fetchFrom(app, "/install.sh", { host: "192.0.2.2:3000" })).text();
    expect(script).toContain("DBVAULT_URL=${DBVAULT_URL:-'http://192.0.2.2:3000'}");
    expect(script).not.toContain("localhost");
    const ps = await (await fetchFrom(app, "/install.ps1", { host: "192.0.2.2:3000" })).text();
    expect(ps).toContain("$server = 'http://192.0.2.2:3000'");
    const releases = await (await fetchFrom(app, "/api/agent/releases", { host: "backup-box:3000" })).json();
    expect(releases.installScript).toBe("http://backup-box:3000/install.sh");
    expect(releases.publicUrlSet).toBe(false);
    // What the setup guide's notice quotes: the port too, not a bare http://localhost.
    expect(releases.mailedLinksUrl).toBe("http://localhost:3000");
  });

  test("behind TRUST_PROXY, the host and scheme the proxy was reached at; without it, forwarded headers are ignored", async () => {
    const behindProxy = appWith(createAgentBinaries({ agentDir: emptyDir, trustedKey: () => key.publicKey, embedded: [] }), { ...unset, trustProxyHops: 1 });
    const headers = { host: "127.0.0.1:3000", "x-forwarded-host": "evil.example, vault.example.org", "x-forwarded-proto": "https" };
    expect((await (await fetchFrom(behindProxy, "/api/agent/releases", headers)).json()).installScript).toBe("https://vault.example.org/install.sh");
    const direct = appWith(createAgentBinaries({ agentDir: emptyDir, trustedKey: () => key.publicKey, embedded: [] }), unset);
    expect((await (await fetchFrom(direct, "/api/agent/releases", headers)).json()).installScript).toBe("http://127.0.0.1:3000/install.sh");
  });

  test("a Host that is not a plain host[:port] is never written into the script", async () => {
    const app = appWith(createAgentBinaries({ agentDir: emptyDir, trustedKey: () => key.publicKey, embedded: [] }), { ...unset, trustProxyHops: 1 });
    const script = await (await fetchFrom(app, "/install.sh", { host: "x:1", "x-forwarded-host": "a'b;rm -rf ~" })).text();
    expect(script).toContain("DBVAULT_URL=${DBVAULT_URL:-'http://localhost:3000'}");
    expect(script).not.toContain("rm -rf ~");
  });

  test("PUBLIC_URL, when set, wins over the Host", async () => {
    const app = appWith(createAgentBinaries({ agentDir: emptyDir, trustedKey: () => key.publicKey, embedded: [] }));
    const releases = await (await fetchFrom(app, "/api/agent/releases", { host: "192.0.2.2:3000" })).json();
    expect(releases.installScript).toBe("https://backups.example.com/install.sh");
    expect(releases.publicUrlSet).toBe(true);
  });
});
