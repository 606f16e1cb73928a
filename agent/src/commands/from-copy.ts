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
  if (fetched.hidden) {
    const { hiddenBy, currentVersionId, versionId, bringBack } = fetched.hidden;
    context.warn(
      hiddenBy === "delete marker"
        ? `the copy is hidden behind a delete marker (version ${currentVersionId}); its earlier version ${versionId} is intact and was read`
        : `the copy was overwritten (its current version ${currentVersionId} is not a dbvault backup file); its earlier version ${versionId} was read`,
    );
    context.say(`to make that version current again: ${bringBack}`);
    context.say("then change the bucket's credentials: whoever hid the copy holds them");
  }
  return fetched;
}
