import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { Elysia } from "elysia";
import { createReleaseSigner } from "../../lib/release-signer";
import type { AppContext } from "../../context";
import { httpBasics } from "../../lib/http";
import { silentLogger } from "../../lib/logger";
import { HOST_PLATFORM_ID } from "@protocol/agent-platforms";
import { createAgentBinaries, HOST_BUILD_FILE } from "./agent-binaries";
import { downloadsController } from "./index";

const emptyDir = mkdtempSync(join(tmpdir(), "dbvault-no-agent-"));
afterAll(() => rmSync(emptyDir, { recursive: true, force: true }));

function appWith(binaries: ReturnType<typeof createAgentBinaries>) {
  const ctx = {
    log: silentLogger,
    config: { publicUrl: "https://backups.example.com", agentDir: emptyDir, dataDir: emptyDir },
    releaseSigner: createReleaseSigner(randomBytes(32).toString("base64")),
  } as unknown as AppContext;
  return new Elysia().use(httpBasics(silentLogger)).use(downloadsController(ctx, { binaries }));
}

test("a server whose agent was not built says so instead of serving nothing", async () => {
  const app = appWith(createAgentBinaries({ agentDir: emptyDir, embedded: [] }));
  const res = await app.handle(new Request("http://localhost/downloads/dbvault-agent-linux-x64"));
  expect(res.status).toBe(404);
  expect((await res.json()).message).toBe("The linux-x64 agent has not been built on this server. This server offers: nothing yet (npm run build:agent).");
  const releases = await (await app.handle(new Request("http://localhost/api/agent/releases"))).json();
  expect(releases.platforms).toEqual([]);
  expect(releases.installScript).toBe("https://backups.example.com/install.sh");
  const script = await (await app.handle(new Request("http://localhost/install.sh"))).text();
  expect(script).toContain("DBVAULT_URL=${DBVAULT_URL:-'https://backups.example.com'}");
  expect(script).toContain("(offered: none)");
});

test.skipIf(HOST_PLATFORM_ID !== "linux-x64")("the host's own build (dist/dbvault-agent) and the embedded copy stand for its platform", async () => {
  const dir = mkdtempSync(join(tmpdir(), "dbvault-host-agent-"));
  try {
    writeFileSync(join(dir, HOST_BUILD_FILE), "host build");
    const fromDisk = await createAgentBinaries({ agentDir: dir, embedded: [] }).available();
    expect(fromDisk.map((b) => [b.platform.id, b.size])).toEqual([["linux-x64", 10]]);
    const embedded = Object.assign(new Blob(["embedded!"]), { name: HOST_BUILD_FILE });
    const fromBinary = await createAgentBinaries({ agentDir: emptyDir, embedded: [embedded] }).available();
    expect(fromBinary.map((b) => [b.platform.id, b.size])).toEqual([["linux-x64", 9]]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
