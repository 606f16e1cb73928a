// Builds the whole product into one self-contained executable for this machine:
// dist/dbvault-server, the server with the built web app and PGlite's run-time files inside.
// Copied to any Linux x64 machine and started, it serves everything on embedded defaults.
//   bun scripts/build-server.ts [--outfile PATH]
// The web app and the agent are (re)built first when missing or older than their sources. Only the
// host target is built, for the same reason as scripts/build-agent.ts.
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, stat } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { findAgentPlatform, HOST_PLATFORM_ID } from "../protocol/agent-platforms";
import { SIGNED_RELEASE_FILE, writeSignedRelease } from "../protocol/signed-release";
import { PRODUCT_VERSION } from "../protocol/version";
import { resolveReleaseSigningKey } from "./lib/release-signing-key";
import {
  AGENT_BUILD,
  isAgentBuildCurrent,
  isBuildCurrent,
  PGLITE_TEMPLATE_BUILD,
  repoRoot as root,
  runBuildScript,
  staleAgentPlatformBuilds,
  WEB_BUILD,
} from "./build-freshness";

const webDist = join(root, "web", "dist");
/**
 * Files PGlite loads at run time from beside its own module (`new URL("./pglite.wasm",
 * import.meta.url)`). Bundled into the binary that module lives at `/$bunfs/root/`, so each file
 * is embedded there under its own name. The server loads no PGlite extensions, so none are here.
 */
const PGLITE_RUNTIME_FILES = ["pglite.wasm", "pglite.data", "initdb.wasm"];

function fail(message: string): never {
  console.error(`build-server: ${message}`);
  process.exit(1);
}

function readOutfile(argv: string[]): string {
  const index = argv.indexOf("--outfile");
  if (index < 0) return resolve(root, "dist", "dbvault-server");
  const value = argv[index + 1];
  if (!value) fail("--outfile needs a path");
  return resolve(value);
}

function runOrFail(label: string, command: string[]) {
  const run = Bun.spawnSync(command, { cwd: root, stdout: "pipe", stderr: "pipe" });
  if (run.exitCode !== 0) {
    console.error(`build-server: ${label} failed (exit ${run.exitCode})`);
    process.stderr.write(run.stderr);
    process.stderr.write(run.stdout);
    process.exit(1);
  }
  return run;
}

function locatePgliteFiles(): string[] {
  const distDir = dirname(Bun.resolveSync("@electric-sql/pglite", root));
  const files = PGLITE_RUNTIME_FILES.map((name) => join(distDir, name));
  const missing = files.filter((file) => !existsSync(file));
  if (missing.length > 0) fail(`PGlite run-time files not found: ${missing.join(", ")} (reinstall node_modules?)`);
  return files;
}

const outfile = readOutfile(process.argv.slice(2));
const started = performance.now();

if (!isBuildCurrent(WEB_BUILD)) {
  console.log("build-server: web/dist is missing or stale, building the web app first");
  runBuildScript("build-web.ts");
}
if (!isAgentBuildCurrent(AGENT_BUILD.output)) {
  console.log("build-server: dist/dbvault-agent is missing or stale, building the agent first");
  runBuildScript("build-agent.ts");
}
for (const platform of staleAgentPlatformBuilds()) runBuildScript("build-agent.ts", ["--target", platform]);
if (!isBuildCurrent(PGLITE_TEMPLATE_BUILD)) runBuildScript("build-pglite-template.ts");

await mkdir(dirname(outfile), { recursive: true });
// `--asset DIR` keeps the folder's own name: web/dist/… is embedded as dist/…, which is where
// server/src/modules/web/assets.ts (EMBEDDED_WEB_PREFIX) looks for it. The host's agent is
// embedded too, so the single file hands out the agent (server/src/modules/downloads), and so is
// a fresh database cluster for a fast first start (server/src/bootstrap.ts).
// The agent's signed release manifest goes with it, naming only the build inside (the builds'
// manifest may list every platform, whose files the single file does not carry, and its host line
// may be another build of the same platform): signed here, from the file embedded, with the
// release key the builds use. The server offers only what it lists, and trusts the key that signed
// it since it is part of the program.
const signingKey = resolveReleaseSigningKey();
const hostPlatform = findAgentPlatform(HOST_PLATFORM_ID) ?? fail(`no agent platform for this machine (${HOST_PLATFORM_ID})`);
const hostBuild = await Bun.file(join(root, AGENT_BUILD.output)).bytes();
const hostEntry = {
  platform: hostPlatform.id,
  fileName: hostPlatform.fileName,
  version: PRODUCT_VERSION,
  sha256: createHash("sha256").update(hostBuild).digest("hex"),
  size: hostBuild.byteLength,
};
const releaseDir = join(root, "dist", "server-release");
await mkdir(releaseDir, { recursive: true });
await writeSignedRelease(releaseDir, [hostEntry], signingKey.privateKey);
const signedRelease = join(releaseDir, SIGNED_RELEASE_FILE);
const assets = [webDist, join(root, AGENT_BUILD.output), signedRelease, join(root, PGLITE_TEMPLATE_BUILD.output), ...locatePgliteFiles()].flatMap((path) => [
  "--asset",
  relative(root, path),
]);
runOrFail("bun build", [
  process.execPath,
  "build",
  "--compile",
  // Not minified (unlike the agent): Elysia reads its handlers' source text to decide what to
  // parse, and minified code made `headers` undefined in the auth guard (even with identifiers
  // kept; see elysiajs/elysia#1711, oven-sh/bun#12594). It would save ~2 MB of 120.
  join(root, "server/src/main.ts"),
  ...assets,
  "--outfile",
  outfile,
]);

const size = (await stat(outfile)).size;
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(`build-server: ${outfile} (${(size / 1024 / 1024).toFixed(1)} MiB, ${process.platform}-${process.arch}) in ${seconds} s`);
