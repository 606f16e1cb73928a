// The real MongoDB Database Tools, built by scripts/ensure-mongo-tools.sh (the test command runs
// it first) into a cache outside the repo. Suites that need them skip with the reason the script
// left when they could not be built (no Go, no module proxy, a failed build).
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export const MONGO_TOOLS_VERSION = "100.18.0";
const MONGO_TOOLS_COMMIT = "8fa3cfc8263b9cead37912d7b0447766143c3e3a";

export type MongoTools = { mongodump: string; mongorestore: string; bsondump: string };

const home = join(process.env.DBVAULT_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "dbvault"), "mongo-tools", MONGO_TOOLS_COMMIT);

/** The tools' paths, or why they are missing (to name in a skipped test). */
export function findMongoTools(): { tools: MongoTools; missing: null } | { tools: null; missing: string } {
  const bin = join(home, "bin");
  const tools = { mongodump: join(bin, "mongodump"), mongorestore: join(bin, "mongorestore"), bsondump: join(bin, "bsondump") };
  if (Object.values(tools).every((path) => existsSync(path))) return { tools, missing: null };
  const reason = existsSync(join(home, "unavailable")) ? readFileSync(join(home, "unavailable"), "utf8").trim() : "run scripts/ensure-mongo-tools.sh";
  return { tools: null, missing: `mongo-tools ${MONGO_TOOLS_VERSION} not built: ${reason}` };
}
