// Builds the agent into self-contained executables with `bun build --compile`.
//   bun scripts/build-agent.ts                  this machine's: dist/dbvault-agent
//   bun scripts/build-agent.ts --all            also every platform: dist/dbvault-agent-<platform>[.exe]
//   bun scripts/build-agent.ts --target ID      one platform (linux-arm64, windows-x64, …)
//   bun scripts/build-agent.ts --outfile PATH   this machine's, elsewhere
//   --outdir DIR        write into DIR instead of dist/ (with its own agent-release.json)
//   --version V         stamp the binaries with version V instead of package.json's (test builds)
//   --if-stale          skip outputs already built from the current sources (npm test, CI)
// Other platforms' Bun runtimes come from the npm registry (@oven/bun-<target>) on first use and
// are kept in Bun's cache (~/.bun/install/cache), so later builds take about a second each.
// The platforms are protocol/agent-platforms.ts: the server offers the same names for download.
// Each build is recorded in <outdir>/agent-release.json (its version, SHA-256, size, for the
// build's own bookkeeping) and signed into <outdir>/agent-release.signed.json, the release
// manifest the server hands out as it is: signed here, with the release key
// (scripts/lib/release-signing-key.ts), so that the server needs no signing key and a binary
// changed in storage afterwards, or a file no build made, is never vouched for.
import { copyFile, mkdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { AGENT_PLATFORMS, type AgentPlatform, findAgentPlatform, HOST_PLATFORM_ID } from "../protocol/agent-platforms";
import { PRODUCT_VERSION } from "../protocol/version";
import { unsign } from "macho-unsign";
import { type AgentBuildEntry, recordAgentBuild } from "../protocol/agent-builds";
import { type ManifestEntry, SEMVER } from "../protocol/release-manifest";
import { readSignedRelease, verifiedEntries, writeSignedRelease } from "../protocol/signed-release";
import { type BuildSigningKey, resolveReleaseSigningKey } from "./lib/release-signing-key";
import { readExecutable } from "./executable-formats";
import { isAgentBuildCurrent } from "./build-freshness";

const root = resolve(import.meta.dir, "..");

function fail(message: string): never {
  console.error(`build-agent: ${message}`);
  process.exit(2);
}

function optionValue(argv: string[], name: string): string | undefined {
  const index = argv.indexOf(name);
  if (index < 0) return undefined;
  const value = argv[index + 1];
  if (!value || value.startsWith("--")) fail(`${name} needs a value`);
  return value;
}

type Build = { platform: AgentPlatform | null; outfile: string };

/** What to build: the platform (null: this machine, as whatever it is) and the output path. */
function readBuilds(argv: string[], outdir: string): Build[] {
  const outfile = optionValue(argv, "--outfile");
  const target = optionValue(argv, "--target");
  if (target) {
    const platform = findAgentPlatform(target);
    if (!platform) fail(`unknown --target ${target} (one of: ${AGENT_PLATFORMS.map((p) => p.id).join(", ")})`);
    return [{ platform, outfile: outfile ? resolve(outfile) : join(outdir, platform.fileName) }];
  }
  const host = { platform: null, outfile: outfile ? resolve(outfile) : join(outdir, "dbvault-agent") };
  if (!argv.includes("--all")) return [host];
  return [host, ...AGENT_PLATFORMS.map((platform) => ({ platform, outfile: join(outdir, platform.fileName) }))];
}

// Every `new Worker(new URL("./…", import.meta.url))` of the agent, so that the compiled program
// carries it (a worker file missing here would be looked for on disk and fail at run time).
const WORKER_ENTRY_POINTS = ["agent/src/dump/mongodump-archive/crc-worker.ts", "agent/src/archive/compression-worker.ts"];

/**
 * The version and platform compiled into the binary (agent/src/build-info.ts reads them): the
 * agent reports them, and an update fetches the build of exactly this platform (musl or glibc).
 */
function buildDefines(platformId: string, version: string): string[] {
  return ["--define", `DBVAULT_BUILD_VERSION=${JSON.stringify(version)}`, "--define", `DBVAULT_BUILD_PLATFORM=${JSON.stringify(platformId)}`];
}

async function build({ platform, outfile }: Build, version: string, built: Map<string, string>): Promise<AgentBuildEntry> {
  await mkdir(dirname(outfile), { recursive: true });
  const platformId = platform?.id ?? HOST_PLATFORM_ID;
  const started = performance.now();
  // The host's build and its platform's build are the same program: copy instead of compiling twice.
  const twin = built.get(platformId);
  if (twin) await copyFile(twin, outfile);
  else {
    const run = Bun.spawnSync(
      [
        process.execPath,
        "build",
        "--compile",
        "--minify",
        // Precompiled bytecode: every command starts in ~17 ms of CPU instead of ~45 ms (parsing
        // the bundle), which is most of the gap to age on a 100 MB encrypt (bench/seal-cli.ts).
        // Needs a bundle without top-level await (agent/src/cli.ts).
        "--bytecode",
        ...(platform ? [`--target=${platform.bunTarget}`] : []),
        ...buildDefines(platformId, version),
        resolve(root, "agent/src/cli.ts"),
        // Worker threads started from a file are entry points of their own (the compression
        // threads need none: their program is inline source text).
        ...WORKER_ENTRY_POINTS.map((path) => resolve(root, path)),
        "--outfile",
        outfile,
      ],
      { cwd: root, stdout: "pipe", stderr: "pipe" },
    );
    if (run.exitCode !== 0) {
      console.error(`build-agent: bun build failed for ${platform?.id ?? "this machine"} (exit ${run.exitCode})`);
      process.stderr.write(run.stderr);
      process.stderr.write(run.stdout);
      process.exit(1);
    }
  }
  if (platform?.os === "darwin") await repairMacSignature(outfile, platform.id);
  built.set(platformId, outfile);
  const entry = await recordAgentBuild(outfile, platformId, version);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`build-agent: ${outfile} (${(entry.size / 1024 / 1024).toFixed(1)} MiB, ${platformId}, version ${version}) in ${seconds} s`);
  return entry;
}

/**
 * Signs the release manifest of `dir`: the builds made now, and for other platforms the lines of
 * the manifest already there when this same key signed it (built and signed earlier; never lines
 * taken from the unsigned record, which anyone with write access to the folder could edit).
 */
async function signRelease(dir: string, builds: readonly AgentBuildEntry[], key: BuildSigningKey): Promise<void> {
  const entries = new Map<string, ManifestEntry>();
  for (const entry of verifiedEntries(readSignedRelease(dir), key.publicKey) ?? []) entries.set(entry.platform, entry);
  for (const { platform: id, version, sha256, size } of builds) {
    const platform = findAgentPlatform(id);
    if (platform) entries.set(id, { platform: id, fileName: platform.fileName, version, sha256, size });
  }
  const ordered = AGENT_PLATFORMS.flatMap((platform) => entries.get(platform.id) ?? []);
  await writeSignedRelease(dir, ordered, key.privateKey);
  console.log(
    `build-agent: signed the release manifest of ${dir} (${ordered.map((e) => e.platform).join(", ")}) with the release key from ${key.source}: ${key.publicKey}`,
  );
}

/**
 * macOS checks a signed binary's pages against its code signature and kills it on a mismatch.
 * Bun signs its darwin-arm64 output afresh (ad hoc), but a darwin-x64 output keeps the runtime's
 * original signature, which no longer matches once the program is inside (oven-sh/bun#39837 fixed
 * arm64 only): a broken signature is worse than none, so it is removed (Intel Macs, and Rosetta,
 * run unsigned programs; Apple silicon needs the valid ad-hoc one, so a broken arm64 one fails the
 * build).
 */
async function repairMacSignature(outfile: string, platformId: string): Promise<void> {
  const bytes = await Bun.file(outfile).bytes();
  const info = readExecutable(bytes);
  if (info.format !== "macho" || info.signature === null || (info.signature.valid && info.signature.coversWholeFile)) return;
  if (info.cpu === "arm64") fail(`the ${platformId} build's code signature does not match the file: Apple silicon would refuse to run it`);
  const unsigned = unsign(bytes);
  if (!unsigned) fail(`could not remove the stale code signature of the ${platformId} build`);
  await Bun.write(outfile, new Uint8Array(unsigned));
  console.log(`build-agent: removed the stale code signature Bun leaves on the ${platformId} build (it no longer matched the file)`);
}

const argv = process.argv.slice(2);
const outdir = resolve(optionValue(argv, "--outdir") ?? join(root, "dist"));
const version = optionValue(argv, "--version") ?? PRODUCT_VERSION;
if (!SEMVER.test(version)) fail(`--version must be a semantic version of at most 32 characters, such as 1.2.3 or 1.2.4-rc.1 (got ${version})`);
const ifStale = argv.includes("--if-stale");
let signingKey: BuildSigningKey;
try {
  signingKey = resolveReleaseSigningKey();
} catch (error) {
  fail(`cannot sign the release: ${(error as Error).message} (RELEASE_SIGNING_KEY is 32 random bytes in base64, e.g. openssl rand -base64 32)`);
}
const built = new Map<string, string>();
const signedBuilds = new Map<string, AgentBuildEntry[]>();
for (const job of readBuilds(argv, outdir)) {
  const output = job.outfile;
  if (ifStale && version === PRODUCT_VERSION && isAgentBuildCurrent(output)) {
    console.log(`build-agent: ${output} is current`);
    continue;
  }
  const entry = await build(job, version, built);
  signedBuilds.set(dirname(output), [...(signedBuilds.get(dirname(output)) ?? []), entry]);
}
for (const [dir, builds] of signedBuilds) await signRelease(dir, builds, signingKey);
