// The real MongoDB Database Tools, built by scripts/ensure-mongo-tools.sh (the test command runs
// it first) into a cache outside the repo. Suites that need them skip with the reason the script
// left when they could not be built (no Go, no module proxy, a failed build).
import { findBuiltPrograms } from "./built-programs";

export const MONGO_TOOLS_VERSION = "100.18.0";
const MONGO_TOOLS_COMMIT = "8fa3cfc8263b9cead37912d7b0447766143c3e3a";

export type MongoTools = { mongodump: string; mongorestore: string; bsondump: string };

/** The tools' paths, or why they are missing (to name in a skipped test). */
export function findMongoTools(): { tools: MongoTools; missing: null } | { tools: null; missing: string } {
  const found = findBuiltPrograms("mongo-tools", MONGO_TOOLS_COMMIT, ["mongodump", "mongorestore", "bsondump"], `mongo-tools ${MONGO_TOOLS_VERSION}`);
  return found.missing === null ? { tools: found.paths, missing: null } : { tools: null, missing: found.missing };
}
