// Builds the whole product into one self-contained executable for this machine:
// dist/dbvault-server, the server with the built web app and PGlite's run-time files inside.
// Copied to any Linux x64 machine and started, it serves everything on embedded defaults.
//   bun scripts/build-server.ts [--outfile PATH]
// The web app is (re)built first when web/dist is missing or older than its sources. Only the
// host target is built, for the same reason as scripts/build-agent.ts.
import { existsSync, readdirSync, statSync } from "node:fs";
import { mkdir, stat } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");
const webDist = join(root, "web", "dist");
/** What the web build reads: when any of it is newer than web/dist/index.html, rebuild. */
const WEB_SOURCES = ["web/src", "web/public", "web/index.html", "web/uno.config.ts", "scripts/build-web.ts"];
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

/** Newest modification time of a file or of every file below a directory. */
function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

function isWebBuildCurrent(): boolean {
  const index = join(webDist, "index.html");
  if (!existsSync(index)) return false;
  const built = statSync(index).mtimeMs;
  return WEB_SOURCES.every((source) => newestMtime(join(root, source)) <= built);
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

if (!isWebBuildCurrent()) {
  console.log("build-server: web/dist is missing or stale, building the web app first");
  process.stdout.write(runOrFail("web build", [process.execPath, join(root, "scripts/build-web.ts")]).stdout);
}

await mkdir(dirname(outfile), { recursive: true });
// `--asset DIR` keeps the folder's own name: web/dist/… is embedded as dist/…, which is where
// server/src/modules/web/assets.ts (EMBEDDED_WEB_PREFIX) looks for it.
const assets = [webDist, ...locatePgliteFiles()].flatMap((path) => ["--asset", relative(root, path)]);
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
console.log(
  `build-server: ${outfile} (${(size / 1024 / 1024).toFixed(1)} MiB, ${process.platform}-${process.arch}) in ${seconds} s`,
);
