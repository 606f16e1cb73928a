// dbvault-agent restore --db NAME --in FILE: verify, decrypt and restore a .enc.dbvault file into
// a configured database, replacing the collections it holds. Nothing is changed when the key is
// wrong or the file's start is damaged (see docs/agent.md, "restore safety").
import { findDatabase, readMasterKey } from "../config.ts";
import { restoreFromEncrypted } from "../dump/index.ts";
import { formatCount, pluralize } from "../ui/format.ts";
import { createProgressDisplay } from "../ui/progress-display.ts";
import type { CommandContext } from "./context.ts";
import { openInput } from "./files.ts";
import { parseOptions, requireString } from "./parse-args.ts";
import { COMMON_OPTIONS, describeEngine } from "./shared.ts";

const OPTIONS = { ...COMMON_OPTIONS, db: "string", in: "string" } as const;

/** Runs `restore`; returns the exit code or throws what describeFailure reports. */
export async function runRestoreCommand(args: string[], context: CommandContext): Promise<number> {
  const options = parseOptions("restore", args, OPTIONS);
  const name = requireString("restore", options, "db", "NAME (a database of the config file)");
  const inPath = requireString("restore", options, "in", "FILE (a .enc.dbvault backup)");
  const { config, path } = await context.loadConfig(options.config);
  const database = findDatabase(config, name, path);
  const masterKey = readMasterKey(config, path);
  const input = await openInput(inPath, context.io);
  const display = createProgressDisplay({
    stream: context.io.stderr,
    isTTY: context.io.stderrIsTTY,
    columns: context.io.columns,
    verb: "restoring",
    quiet: options.quiet === true,
  });
  try {
    const result = await restoreFromEncrypted({
      uri: database.uri,
      masterKey,
      input: input.stream,
      ...(input.size === undefined ? {} : { inputBytes: input.size }),
      tools: config.tools,
      signal: context.io.signal,
      onProgress: (progress) => display.update(progress),
      onNotice: (message) => context.say(message),
    });
    display.finish();
    const collections = Object.keys(result.collections).length;
    context.say(
      `restored ${pluralize(result.restored, "document")} into ${pluralize(collections, "collection")} of ${name} ` +
        `with ${describeEngine(result.engine, "mongorestore")} from ${input.label}`,
    );
    for (const [namespace, stats] of Object.entries(result.collections)) {
      if (stats.failed > 0) context.warn(`${namespace}: ${formatCount(stats.failed)} document(s) failed to restore (duplicate keys or rejected documents)`);
    }
    if (result.skipped.length > 0) context.say(`skipped ${result.skipped.join(", ")} (oplog, server or system collections, other databases)`);
    return 0;
  } catch (error) {
    display.finish();
    input.stream.destroy();
    throw error;
  }
}
