// dbvault-agent dump --db NAME --out FILE: dump a configured database, compress and encrypt it
// into a .enc.dbvault file (the same file the daemon uploads).
import { pipeline } from "node:stream/promises";
import { findDatabase, readSealingKey } from "../config.ts";
import { defaultCompressionThreads } from "../archive/index.ts";
import { type Consistency, createBackupStream } from "../dump/index.ts";
import { formatBytes, pluralize } from "../ui/format.ts";
import { createProgressDisplay } from "../ui/progress-display.ts";
import type { CommandContext } from "./context.ts";
import { createOutput, releasingStream } from "./files.ts";
import { parseOptions, requireString } from "./parse-args.ts";
import { COMMON_OPTIONS, createByteCounter, describeEngine, readCompression } from "./shared.ts";

const OPTIONS = { ...COMMON_OPTIONS, db: "string", out: "string", compression: "string", force: "boolean", "no-users-and-roles": "boolean" } as const;

/** Runs `dump`; returns the exit code or throws what describeFailure reports. */
export async function runDumpCommand(args: string[], context: CommandContext): Promise<number> {
  const options = parseOptions("dump", args, OPTIONS);
  const name = requireString("dump", options, "db", "NAME (a database of the config file)");
  const out = requireString("dump", options, "out", "FILE");
  const compression = readCompression("dump", options);
  const { config, path } = await context.loadConfig(options.config);
  const database = findDatabase(config, name, path);
  const sealingKey = readSealingKey(config, path);
  const output = await createOutput(out, context.io, options.force === true);
  const display = createProgressDisplay({
    stream: context.io.stderr,
    isTTY: context.io.stderrIsTTY,
    columns: context.io.columns,
    verb: "dumping",
    quiet: options.quiet === true,
  });
  try {
    const backup = createBackupStream({
      uri: database.uri,
      // A one-off command may take every core (the daemon's budget is tighter: encrypted.ts).
      compressionThreads: defaultCompressionThreads(),
      ...sealingKey,
      compression: compression ?? config.compression ?? "zstd",
      tools: config.tools,
      usersAndRoles: options["no-users-and-roles"] !== true && database.usersAndRoles !== false,
      signal: context.io.signal,
      onProgress: (progress) => display.update(progress),
      onNotice: (message) => context.say(message),
    });
    const counter = createByteCounter();
    await pipeline(backup.stream, counter, releasingStream(output));
    const result = await backup.result;
    display.finish();
    await output.commit();
    const collections = Object.keys(result.collections).length;
    context.say(
      `dumped ${pluralize(result.documents, "document")} from ${pluralize(collections, "collection")} of ${name} ` +
        `with ${describeEngine(result.engine, "mongodump")} into ${output.label} (${formatBytes(counter.bytes)}, key id ${backup.header.keyId})`,
    );
    if (result.consistency) context.say(describeConsistency(result.consistency));
    return 0;
  } catch (error) {
    display.finish();
    await output.discard();
    throw error;
  }
}

/** What moment the dump holds, in the words of the backups table. */
export function describeConsistency(consistency: Consistency): string {
  if (consistency.kind === "standalone") return "not point-in-time consistent (standalone server)";
  const { time, ts } = consistency.at;
  return `consistent at ${time} (oplog timestamp {t: ${ts.t}, i: ${ts.i}}): the oplog entries written during the dump are in the archive`;
}
