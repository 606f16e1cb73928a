// Installs a downloaded agent over the running one without ever leaving a broken binary in its
// place: the new file is written beside it, checked (size, SHA-256 from the signed manifest, and
// that it runs here and reports the expected version), synced to disk, then renamed over the old
// one in one step. Windows cannot replace a running program's file but can rename it: the old one
// is moved aside first (and put back if the second rename fails), and removed at a later start.
import { randomBytes } from "node:crypto";
import { chmod, open, readdir, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { OsFamily } from "../platform/locations.ts";
import { syncDirectory } from "../platform/sync-directory.ts";
import { UpdateError } from "./errors.ts";

export type ExpectedBinary = { sha256: string; size: number; version: string };

const TEMP_PREFIX = ".dbvault-agent.update-";
const ASIDE_INFIX = ".old-";
const SMOKE_TEST_MS = 60_000;

/** Writes `body` beside `target`, checks it, and renames it over `target`; throws UpdateError (nothing changed) on any failure. */
export async function replaceBinary(options: { target: string; family: OsFamily; body: ReadableStream<Uint8Array>; expected: ExpectedBinary }): Promise<void> {
  const { target, family, expected } = options;
  const dir = dirname(target);
  const temporary = join(dir, `${TEMP_PREFIX}${randomBytes(6).toString("hex")}${family === "windows" ? ".exe" : ""}`);
  try {
    await writeChecked(temporary, options.body, expected);
    await checkRuns(temporary, expected.version);
    if (family !== "windows") await chmod(temporary, (await stat(target)).mode & 0o777);
    await swapInto(temporary, target, family);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => {});
    if (error instanceof UpdateError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const hint =
      code === "EACCES" || code === "EPERM"
        ? `: this agent's user cannot write to ${dir} (run it as the user that owns ${basename(target)}, or reinstall it with install.sh)`
        : "";
    throw new UpdateError(`could not install the new version: ${(error as Error).message}${hint}; nothing was changed`);
  }
}

async function writeChecked(path: string, body: ReadableStream<Uint8Array>, expected: ExpectedBinary): Promise<void> {
  const file = await open(path, "wx", 0o700);
  const hasher = new Bun.CryptoHasher("sha256");
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.byteLength;
      if (size > expected.size) throw new UpdateError(`the download is larger than the signed manifest says (${expected.size} bytes): nothing was installed`);
      hasher.update(chunk);
      await file.write(chunk);
    }
    await file.sync();
  } finally {
    await file.close();
  }
  const sha256 = hasher.digest("hex");
  if (size !== expected.size || sha256 !== expected.sha256) {
    throw new UpdateError(
      `the downloaded agent does not match the signed release manifest (SHA-256 ${sha256}, ${size} bytes; expected ${expected.sha256}, ${expected.size} bytes): it was altered on its way or in the server's storage; nothing was installed`,
    );
  }
}

/** The new binary must start on this machine and be the version the manifest names. */
async function checkRuns(path: string, version: string): Promise<void> {
  let output: { stdout: string; stderr: string; code: number | null };
  try {
    const child = Bun.spawn([path, "version"], { stdout: "pipe", stderr: "pipe", stdin: "ignore", timeout: SMOKE_TEST_MS });
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    output = { stdout, stderr, code };
  } catch (error) {
    throw new UpdateError(`the new version does not start on this machine (${(error as Error).message}): nothing was installed`);
  }
  if (output.code !== 0 || !output.stdout.startsWith(`dbvault-agent ${version} (`)) {
    const said = (output.stderr.trim() || output.stdout.trim()).split("\n")[0]?.slice(0, 300) || `exit status ${output.code}`;
    throw new UpdateError(`the new version does not run on this machine (${said}): nothing was installed`);
  }
}

async function swapInto(temporary: string, target: string, family: OsFamily): Promise<void> {
  if (family !== "windows") {
    await rename(temporary, target);
    // The rename itself reaches the disk only with its directory.
    await syncDirectory(dirname(target));
    return;
  }
  const aside = `${target}${ASIDE_INFIX}${Date.now()}`;
  await rename(target, aside);
  try {
    await rename(temporary, target);
  } catch (error) {
    await rename(aside, target);
    throw error;
  }
}

/** Removes what earlier updates left beside `target` (a Windows binary moved aside, an unfinished download); never throws. */
export async function removeUpdateLeftovers(target: string): Promise<string[]> {
  const dir = dirname(target);
  const name = basename(target);
  const removed: string[] = [];
  for (const entry of await readdir(dir).catch(() => [] as string[])) {
    if (!entry.startsWith(TEMP_PREFIX) && !entry.startsWith(`${name}${ASIDE_INFIX}`)) continue;
    // A file still in use (a relaunching parent's own binary on Windows) stays for next time.
    const gone = await rm(join(dir, entry), { force: true }).then(
      () => true,
      () => false,
    );
    if (gone) removed.push(entry);
  }
  return removed;
}
