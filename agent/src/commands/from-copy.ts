// --from-copy of restore and decrypt: --in names an object key in a copy destination of the
// config (dbvault-agent copies add), read from the customer's bucket instead of a local file.
import type { AgentConfig } from "../config.ts";
import { chooseCopyFor, downloadFromCopy } from "../copies/copy-download.ts";
import { formatBytes } from "../ui/format.ts";
import type { CommandContext } from "./context.ts";

/** Fetches the copy into a private temporary file; throws CliError saying what failed. */
export async function fetchFromCopy(command: string, config: AgentConfig, configPath: string, named: string, context: CommandContext) {
  const { entry, key } = chooseCopyFor(command, config, configPath, named);
  const fetched = await downloadFromCopy(entry, key);
  context.say(`read ${key} (${formatBytes(fetched.size)}) from ${entry.url}`);
  return fetched;
}
