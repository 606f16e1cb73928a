// The server's OCI image as a self-hoster runs it: built with buildah on a Debian base made by
// mmdebstrap (container/build-image.sh, no Docker engine), started with podman with its data in
// a named volume; an agent registers against it and a backup completes; after a restart of the
// container the account and the backup are still there.
//
// Two podman flags are this machine's, not the image's (a self-hoster runs
// `podman run -p 3000:3000 -v dbvault-data:/data IMAGE`): `--runtime runc`, since crun refuses
// the hybrid cgroup layout of this sandbox ("cgroups in hybrid mode not supported"), and ulimits
// below this process's own, since the sandbox has no CAP_SYS_RESOURCE to raise them (podman's
// default of 1048576 open files, and even this process's own figures, are refused as "setrlimit:
// Operation not permitted"). The host network stands in for a published port.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import { runSetup, ensureFreshBinary, type RunningAgent, startAgentProcess } from "../agent/test/support/end-to-end.ts";
import { apiFor } from "../agent/test/support/server-faults.ts";
import { type AgentTestEnv, openAgentTestEnv } from "../agent/test/support/test-env.ts";
import { findFreePort } from "../testkit/server-process.ts";
import { waitUntil } from "../testkit/wait-until.ts";
import { PRODUCT_VERSION } from "../protocol/version.ts";

const REPO_ROOT = resolve(import.meta.dir, "..");
const IMAGE = `localhost/dbvault-server:${PRODUCT_VERSION}`;
const ARCHIVE = join(REPO_ROOT, "dist/dbvault-server-image.oci.tar");
// The first build makes the Debian base (minutes on a fresh machine); later ones reuse it.
const BUILD_TIMEOUT_MS = 20 * 60_000;

const missingTools = ["buildah", "podman", "mmdebstrap", "runc"].filter((tool) => Bun.which(tool) === null);
const skipReason = missingTools.length > 0 ? `${missingTools.join(", ")} not installed (scripts/ensure-system-packages.sh installs them as root)` : null;

function run(command: string[]): { code: number; out: string } {
  const done = Bun.spawnSync(command, { cwd: REPO_ROOT, stdout: "pipe", stderr: "pipe" });
  return { code: done.exitCode, out: `${done.stdout.toString()}${done.stderr.toString()}` };
}

function must(command: string[]): string {
  const { code, out } = run(command);
  if (code !== 0) throw new Error(`${command.join(" ")} exited with ${code}:\n${out}`);
  return out.trim();
}

/**
 * A limit below this process's own soft limit of `flag` (-n, -u) and below `most`: the runtime
 * sets it from a process of its own whose limits may be lower than this one's, and raising any
 * is refused here.
 */
const limitBelow = (flag: string, most: number) => {
  const own = must(["bash", "-c", `ulimit -S ${flag}`]);
  const value = own === "unlimited" ? most : Math.min(Number(own), most);
  return `${value}:${value}`;
};

describe.skipIf(skipReason !== null)(`the server's container image${skipReason ? ` (skipped: ${skipReason})` : ""}`, () => {
  const name = `dbvault-test-${randomBytes(4).toString("hex")}`;
  const volume = `${name}-data`;
  const port = findFreePort();
  const base = `http://127.0.0.1:${port}`;
  let env: AgentTestEnv;
  let agent: RunningAgent | undefined;

  const answering = () =>
    waitUntil(async () => (await fetch(`${base}/api/settings/plans`).catch(() => null))?.ok, {
      timeout: 90_000,
      interval: 250,
      message: `the container to answer (podman logs: ${run(["podman", "logs", "--tail", "20", name]).out})`,
    });

  beforeAll(async () => {
    await ensureFreshBinary();
    must(["bash", "container/build-image.sh", ARCHIVE]);
    env = await openAgentTestEnv();
  }, BUILD_TIMEOUT_MS);

  afterAll(async () => {
    await agent?.stop("SIGKILL");
    run(["podman", "rm", "--force", "--time", "0", name]);
    run(["podman", "volume", "rm", "--force", volume]);
    await env?.close();
  });

  test("holds the server binary, CA certificates and nothing to run as root", () => {
    const config = JSON.parse(must(["podman", "image", "inspect", IMAGE]))[0].Config;
    expect(config.User).toBe("10001:10001");
    expect(config.Entrypoint).toEqual(["/usr/local/bin/dbvault-server"]);
    expect(Object.keys(config.Volumes ?? {})).toEqual(["/data"]);
    expect(config.Env).toContain("DATA_DIR=/data");
    // The files, read from the image without running it.
    const container = must(["buildah", "from", "--pull-never", IMAGE]).split("\n").at(-1)!;
    try {
      const root = must(["buildah", "mount", container]);
      const listing = must([
        "sh",
        "-c",
        `cd '${root}' && ls -ln usr/local/bin/dbvault-server etc/ssl/certs/ca-certificates.crt && ls -nd data && ls usr/share/doc | wc -l`,
      ]);
      expect(listing).toMatch(/-rwxr-xr-x .* usr\/local\/bin\/dbvault-server/);
      expect(listing).toContain("etc/ssl/certs/ca-certificates.crt");
      expect(listing).toMatch(/d\S+ +\d+ 10001 10001 .* data/);
      expect(listing.split("\n").at(-1)).toBe("0"); // no documentation copied in
    } finally {
      run(["buildah", "umount", container]);
      run(["buildah", "rm", container]);
    }
  });

  test(
    "serves the app, an agent registers and backs up, and the data survives a restart",
    async () => {
      must([
        "podman",
        "run",
        "--detach",
        "--name",
        name,
        "--runtime",
        "runc",
        "--network",
        "host",
        "--ulimit",
        `nofile=${limitBelow("-n", 10_000)}`,
        "--ulimit",
        `nproc=${limitBelow("-u", 4096)}`,
        "--volume",
        `${volume}:/data`,
        "--env",
        `PORT=${port}`,
        "--env",
        "HOST=127.0.0.1",
        "--env",
        `PUBLIC_URL=${base}`,
        IMAGE,
      ]);
      await answering();
      const home = await fetch(`${base}/`);
      expect(home.status).toBe(200);
      expect(await home.text()).toContain('<div id="root"></div>');

      const email = `container-${randomBytes(4).toString("hex")}@example.com`;
      const registered = await fetch(`${base}/api/auth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "Container User", email, password: "secret123" }),
      });
      expect(registered.status).toBe(201);
      const { token, user } = (await registered.json()) as { token: string; user: { apiKey: string } };
      const api = apiFor(base, token);

      const database = env.uniqueDatabase("container");
      await env.client
        .db(database)
        .collection("orders")
        .insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }] as never[]);
      const setup = await runSetup({
        baseUrl: base,
        apiKey: user.apiKey,
        databases: [{ name: "main", uri: env.uriFor(database) }],
        directory: await env.makeTempDir(),
      });
      expect(setup.exitCode).toBe(0);
      agent = startAgentProcess(setup.configPath);
      await waitUntil(async () => (await api("GET", "/api/settings/system-status")).body.agents?.[0]?.status === "active", {
        timeout: 30_000,
        message: "the agent to be online",
      });
      const created = await api("POST", "/api/backups", { databaseName: "main" });
      expect(created.status).toBe(201);
      const done = await waitUntil(
        async () => {
          const backup = (await api("GET", `/api/backups/${created.body._id}`)).body;
          return backup.status === "completed" || backup.status === "failed" ? backup : undefined;
        },
        { timeout: 90_000, message: "the backup to end" },
      );
      expect(done.status).toBe("completed");

      // Stopped as a service manager stops it (SIGTERM), started again on the same volume.
      must(["podman", "stop", "--time", "30", name]);
      expect(must(["podman", "inspect", "--format", "{{.State.ExitCode}}", name])).toBe("0");
      must(["podman", "start", name]);
      await answering();
      const signedIn = await fetch(`${base}/api/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, password: "secret123" }),
      });
      expect(signedIn.status).toBe(200);
      const again = apiFor(base, ((await signedIn.json()) as { token: string }).token);
      const listed = (await again("GET", "/api/backups")).body as { id: string; status: string }[];
      expect(listed.find((backup) => backup.id === created.body._id)?.status).toBe("completed");
    },
    5 * 60_000,
  );
});
