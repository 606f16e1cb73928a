// mongodump and mongorestore (100.3+) read the connection string from a YAML file given with
// --config, which keeps it out of argv (visible to every user through the process list). The
// file lives in a fresh private directory, is readable by its owner only, and goes afterwards.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface ToolConfigFile {
  path: string;
  /** Deletes the file and its directory; never throws. */
  dispose(): Promise<void>;
}

/** Writes `uri: "<connection string>"` to a 0600 file in a new 0700 directory; throws on I/O failure. */
export async function writeToolConfig(uri: string): Promise<ToolConfigFile> {
  const directory = await mkdtemp(join(tmpdir(), "dbvault-agent-"));
  const path = join(directory, "tool-config.yaml");
  // A JSON string is a valid YAML double-quoted scalar, so any character in the URI is safe.
  await writeFile(path, `uri: ${JSON.stringify(uri)}\n`, { mode: 0o600, flag: "wx" });
  return {
    path,
    dispose: () => rm(directory, { recursive: true, force: true }).catch(() => undefined),
  };
}
