// The single-file server (dist/dbvault-server, scripts/build-server.ts) the way a self-hoster
// runs it: copied alone into an empty directory, started with environment variables only, on
// its embedded defaults (PGlite, local storage, mail to the log). No checkout, no node_modules.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { waitUntil } from "../../testkit/wait-until";
import { readAgentBuildRecord } from "@protocol/agent-builds";
import { buildReleasePublicKey } from "../../testkit/signed-agent-release";
import { verifyManifest } from "@protocol/release-manifest";
import { PRODUCT_VERSION } from "@protocol/version";

const REPO_ROOT = resolve(import.meta.dir, "../..");
const BINARY_PATH = join(REPO_ROOT, "dist/dbvault-server");
/** What goes into the binary: when any of it is newer than the binary, rebuild it. */
const BINARY_SOURCES = ["server/src", "db", "protocol", "web/src", "web/public", "web/index.html", "web/dist", "scripts/build-server.ts"];
const START_TIMEOUT_MS = 60_000;

// The PostgreSQL pass of scripts/test.sh reruns server/ tests; the binary runs on its embedded
// database whatever the pass, so once is enough.
const describeOnce = process.env.TEST_DATABASE_URL ? describe.skip : describe;

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((entry) => newestMtime(join(path, entry))));
}

function ensureBinary() {
  const built = existsSync(BINARY_PATH) ? statSync(BINARY_PATH).mtimeMs : 0;
  if (built > 0 && BINARY_SOURCES.every((source) => newestMtime(join(REPO_ROOT, source)) <= built)) return;
  const build = Bun.spawnSync([process.execPath, join(REPO_ROOT, "scripts/build-server.ts")], { stdout: "pipe", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`build-server failed: ${build.stderr.toString()}${build.stdout.toString()}`);
}

function findFreePort(): number {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

type RunningServer = { url: string; process: Bun.Subprocess<"ignore", "pipe", "pipe">; output: () => string };

/** Starts the copied binary in `dir` and waits until its API answers. */
async function startBinary(dir: string, binary: string): Promise<RunningServer> {
  const port = findFreePort();
  const url = `http://127.0.0.1:${port}`;
  const child = Bun.spawn([binary], {
    cwd: dir,
    // Only what a self-hoster would set: nothing inherited from this test process.
    env: { PORT: String(port), HOST: "127.0.0.1", PUBLIC_URL: url, DATA_DIR: join(dir, "data"), LOG_LEVEL: "info" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let output = "";
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) output += new TextDecoder().decode(chunk);
  };
  void collect(child.stdout);
  void collect(child.stderr);
  try {
    await waitUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`dbvault-server exited with ${child.exitCode}:\n${output}`);
        return (await fetch(`${url}/api/settings/plans`).catch(() => null))?.ok;
      },
      { timeout: START_TIMEOUT_MS, interval: 100, message: `dbvault-server to answer` },
    );
  } catch (error) {
    child.kill();
    throw new Error(`${(error as Error).message}\n${output}`);
  }
  return { url, process: child, output: () => output };
}

/** Stops it the way a service manager does (SIGTERM) and returns the exit code. */
async function stopBinary(server: RunningServer): Promise<number> {
  server.process.kill("SIGTERM");
  // A deadline for a clean stop, not a wait for something to happen.
  const timeout = Bun.sleep(15_000).then(() => "timeout" as const);
  const result = await Promise.race([server.process.exited, timeout]);
  if (result === "timeout") {
    server.process.kill("SIGKILL");
    throw new Error(`dbvault-server ignored SIGTERM:\n${server.output()}`);
  }
  return result;
}

describeOnce("single-file server binary", () => {
  let dir: string;
  let binary: string;
  let server: RunningServer | null = null;
  const account = { name: "Self Hoster", email: `binary-${Date.now().toString(36)}@example.com`, password: "secret123" };

  beforeAll(() => {
    ensureBinary();
    dir = mkdtempSync(join(tmpdir(), "dbvault-binary-"));
    binary = join(dir, "dbvault-server");
    copyFileSync(BINARY_PATH, binary);
  });
  afterAll(async () => {
    if (server && server.process.exitCode === null) server.process.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  test(
    "starts alone in an empty directory and serves the web app",
    async () => {
      expect(readdirSync(dir)).toEqual(["dbvault-server"]);
      server = await startBinary(dir, binary);

      const home = await fetch(`${server.url}/`);
      expect(home.status).toBe(200);
      expect(home.headers.get("content-type")).toContain("text/html");
      expect(home.headers.get("cache-control")).toBe("no-cache");
      const html = await home.text();
      expect(html).toContain('<div id="root"></div>');

      // A deep link gets the same shell (history fallback), so the client router can take over.
      const deep = await fetch(`${server.url}/kb`);
      expect(deep.status).toBe(200);
      expect(await deep.text()).toBe(html);

      const script = html.match(/<script[^>]+src="(\/assets\/[^"]+\.js)"/)?.[1];
      expect(script).toBeDefined();
      const js = await fetch(`${server.url}${script}`);
      expect(js.status).toBe(200);
      expect(js.headers.get("content-type")).toContain("javascript");
      expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect((await js.text()).length).toBeGreaterThan(1000);

      // Fonts come from the binary itself, not a third-party service.
      const font = html.match(/href="(\/assets\/fonts\/[^"]+\.woff2)"/)?.[1];
      expect(font).toBeDefined();
      const fontResponse = await fetch(`${server.url}${font}`);
      expect(fontResponse.status).toBe(200);
      expect(fontResponse.headers.get("content-type")).toContain("woff2");
      expect(html).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);

      expect((await fetch(`${server.url}/assets/missing-123.js`)).status).toBe(404);

      // The first start unpacked the embedded database template instead of running initdb.
      expect(server.output()).toContain('"message":"embedded database created","from":"template"');
      // It hands out the agent built into it, checksummed.
      const releases = (await (await fetch(`${server.url}/api/agent/releases`)).json()) as { platforms: { url: string; sha256: string; size: number }[] };
      const linux = releases.platforms.find((p) => p.url.endsWith("/downloads/dbvault-agent-linux-x64"));
      expect(linux?.size).toBeGreaterThan(10_000_000);
      const agentDownload = await fetch(`${server.url}/downloads/dbvault-agent-linux-x64`);
      expect(agentDownload.headers.get("x-content-sha256")).toBe(linux!.sha256);
      expect(new Bun.CryptoHasher("sha256").update(await agentDownload.arrayBuffer()).digest("hex")).toBe(linux!.sha256);
      // Offered in the manifest the agent's build signed (embedded beside it), trusted by the key
      // that signed it, compiled in with it: the server itself holds no signing key and signs
      // nothing, so its own data directory has none. Only the host's build is inside.
      const signed = releases as unknown as { manifest: string; signature: string; publicKey: string };
      const entries = verifyManifest(signed.manifest, signed.signature, signed.publicKey);
      expect(entries).toEqual([
        { platform: "linux-x64", fileName: "dbvault-agent-linux-x64", version: PRODUCT_VERSION, sha256: linux!.sha256, size: linux!.size },
      ]);
      expect(readAgentBuildRecord(join(REPO_ROOT, "dist"))["dbvault-agent"]?.sha256).toBe(linux!.sha256);
      expect(signed.publicKey).toBe(buildReleasePublicKey());
    },
    START_TIMEOUT_MS + 30_000,
  );

  test("runs the API on its embedded database and migrations", async () => {
    const plans = await fetch(`${server!.url}/api/settings/plans`);
    expect(plans.status).toBe(200);
    const body = (await plans.json()) as { name: string; price: number }[];
    expect(body.length).toBeGreaterThan(0);
    expect(body.some((plan) => plan.price === 0)).toBe(true);

    const articles = (await (await fetch(`${server!.url}/api/kb`)).json()) as { articles?: unknown[] };
    expect(articles.articles?.length ?? 0).toBeGreaterThan(0);

    const register = await fetch(`${server!.url}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(account),
    });
    expect(register.status).toBe(201);
    const session = (await register.json()) as { token: string; user: { email: string } };
    expect(session.user.email).toBe(account.email);
    const profile = await fetch(`${server!.url}/api/user/profile`, { headers: { authorization: `Bearer ${session.token}` } });
    expect(profile.status).toBe(200);
    expect(((await profile.json()) as { email: string }).email).toBe(account.email);

    // Everything it keeps is under DATA_DIR: the directory holds only the binary and data/.
    expect(readdirSync(dir).sort()).toEqual(["data", "dbvault-server"]);
    // It trusts the release compiled into it: no signing key was generated for it.
    expect((await Bun.file(join(dir, "data", "secrets.json")).json()).releaseSigningKey).toBeUndefined();
  });

  test(
    "stops cleanly on SIGTERM and keeps its data across a restart",
    async () => {
      expect(await stopBinary(server!)).toBe(0);
      server = await startBinary(dir, binary);
      const login = await fetch(`${server.url}/api/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: account.email, password: account.password }),
      });
      expect(login.status).toBe(200);
      expect(await stopBinary(server)).toBe(0);
    },
    START_TIMEOUT_MS + 30_000,
  );
});
