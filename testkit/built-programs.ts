// Programs the suite builds from their Go source once (scripts/ensure-mongo-tools.sh,
// scripts/ensure-ferretdb.sh, scripts/ensure-seaweedfs.sh, all through
// scripts/lib/go-source-build.sh) into a cache outside the repo: <cache>/<name>/<version>/bin.
// When a build could not happen, the script left the reason in
// <cache>/<name>/<version>/unavailable; tests that need the programs skip with it.
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

const CACHE = process.env.DBVAULT_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "dbvault");

/**
 * The paths of `programs` built under <cache>/<name>/<version>/bin, or why they are missing
 * (`label` names them in that sentence, for a skipped test to show).
 */
export function findBuiltPrograms<P extends string>(
  name: string,
  version: string,
  programs: readonly P[],
  label: string,
): { paths: Record<P, string>; missing: null } | { paths: null; missing: string } {
  const home = join(CACHE, name, version);
  const paths = Object.fromEntries(programs.map((program) => [program, join(home, "bin", program)])) as Record<P, string>;
  if (Object.values<string>(paths).every((path) => existsSync(path))) return { paths, missing: null };
  const unavailable = join(home, "unavailable");
  const script = name === "mongo-tools" ? "scripts/ensure-mongo-tools.sh" : `scripts/ensure-${name}.sh`;
  const reason = existsSync(unavailable) ? readFileSync(unavailable, "utf8").trim() : `run ${script}`;
  return { paths: null, missing: `${label} not built: ${reason}` };
}
