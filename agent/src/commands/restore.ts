// dbvault-agent restore (--db NAME | --uri URI | --uri-file PATH) --in FILE [--to-db TARGET]
// [--collections a,b] [--json]: verify the whole .enc.dbvault file, then restore it into a
// configured database or one named by its connection string (or another database TARGET on the
// same connection), replacing or creating the collections it holds, or only those chosen. Nothing is changed unless the whole file is good, and collections are swapped in only
// once all of them were restored (docs/restore.md).
import { isDumpError, readUriDatabase, restoreFromEncrypted, VERIFYING_LABEL } from "../dump/index.ts";
import { pluralize } from "../ui/format.ts";
import { CliError, EXIT } from "../cli-error.ts";
import { createProgressDisplay } from "../ui/progress-display.ts";
import type { CommandContext } from "./context.ts";
import { openInput } from "./files.ts";
import { loadMasterKeyConfig } from "./master-key.ts";
import { chooseRestoreTarget } from "./restore-target.ts";
import { describeOplogReplay, describePointInTime, describeRestoredCollections, listExistingNamespaces } from "./restore-summary.ts";
import { readPointInTimeOptions } from "./point-in-time-options.ts";
import { formatOplogTime } from "../../../protocol/oplog-position.ts";
import { parseOptions, requireString } from "./parse-args.ts";
import { COMMON_OPTIONS, describeEngine } from "./shared.ts";
import { fetchFromCopy } from "./from-copy.ts";

const OPTIONS = {
  identity: "string",
  ...COMMON_OPTIONS,
  db: "string",
  uri: "string",
  "uri-file": "string",
  in: "string",
  "to-db": "string",
  collections: "string",
  json: "boolean",
  "no-users-and-roles": "boolean",
  "from-copy": "boolean",
  oplog: "string",
  until: "string",
} as const;

/** Runs `restore`; returns the exit code or throws what describeFailure reports. */
export async function runRestoreCommand(args: string[], context: CommandContext): Promise<number> {
  const options = parseOptions("restore", args, OPTIONS);
  const named = requireString("restore", options, "in", "FILE (a .enc.dbvault backup)");
  const { config, path, keyring, identities } = await loadMasterKeyConfig(context, options.config, options.identity);
  const target = await chooseRestoreTarget(options, config, path, context);
  const targetDatabase = typeof options["to-db"] === "string" ? checkDatabaseName(options["to-db"]) : undefined;
  const name = targetDatabase ?? target.label;
  const collections = typeof options.collections === "string" ? parseCollections(options.collections) : undefined;
  const pointInTime = await readPointInTimeOptions(options, { masterKey: keyring, ...(identities ? { identities } : {}) });
  const fromCopy = options["from-copy"] === true ? await fetchFromCopy("restore", config, path, named, context) : undefined;
  try {
    return await restoreFile(fromCopy?.path ?? named);
  } finally {
    await fromCopy?.discard();
    await pointInTime?.remove();
  }

  async function restoreFile(inPath: string): Promise<number> {
    const input = await openInput(inPath, context.io);
    const display = createProgressDisplay({
      stream: context.io.stderr,
      isTTY: context.io.stderrIsTTY,
      columns: context.io.columns,
      verb: "restoring",
      quiet: options.quiet === true,
      steps: { [VERIFYING_LABEL]: "verifying the backup" },
    });
    try {
      const existing = await listExistingNamespaces(target.uri, targetDatabase ?? readUriDatabase(target.uri));
      const result = await restoreFromEncrypted({
        uri: target.uri,
        masterKey: keyring,
        identities,
        input: input.stream,
        ...(input.size === undefined ? {} : { inputBytes: input.size }),
        ...(input.reopen ? { reopen: input.reopen } : {}),
        ...(targetDatabase ? { database: targetDatabase } : {}),
        // A backup of a database with no collection yet names none: the connection's database is its source.
        ...(readUriDatabase(target.uri) ? { sourceDatabase: readUriDatabase(target.uri)! } : {}),
        ...(collections ? { collections } : {}),
        tools: config.tools,
        usersAndRoles: options["no-users-and-roles"] !== true && target.usersAndRoles,
        signal: context.io.signal,
        onProgress: (progress) => display.update(progress),
        onNotice: (message) => context.say(message),
        ...(pointInTime ? { pointInTime: pointInTime.replay } : {}),
      });
      display.finish();
      const chain = pointInTime?.chain();
      if (options.json === true) {
        const pit = pointInTime && { until: formatOplogTime(pointInTime.replay.until), slices: chain?.slices.map((slice) => slice.name) ?? [] };
        context.io.stdout.write(
          `${JSON.stringify({ restored: result.restored, failed: result.failed, collections: result.collections, ...(pit ? { pointInTime: pit } : {}) })}\n`,
        );
      }
      context.say(
        `restored ${pluralize(result.restored, "document")} into ${pluralize(Object.keys(result.collections).length, "collection")} of ${name} ` +
          `with ${describeEngine(result.engine, "mongorestore")} from ${input.label}; ${describeRestoredCollections(result, existing)}${result.oplog?.dropped.length ? "" : ", nothing else changed"}`,
      );
      const replayed = pointInTime ? describePointInTime(result, pointInTime.replay.until, chain) : describeOplogReplay(result);
      if (replayed) context.say(replayed);
      if (result.skipped.length > 0)
        context.say(`skipped ${result.skipped.join(", ")} (oplog, server or system collections, other databases or collections not chosen)`);
      return 0;
    } catch (error) {
      display.finish();
      input.stream.destroy();
      // Any failure but a swap phase stopped part-way happens before the first collection is replaced.
      if (!isDumpError(error, "restore-incomplete")) context.say(`nothing was changed in ${name}`);
      throw error;
    }
  }
}

// MongoDB refuses these in database names (and an empty one); the server would say so later,
// after the whole file was verified.
function checkDatabaseName(name: string): string {
  if (name.length === 0 || name.length > 63 || /[/\\. "$*<>:|?\0]/.test(name)) {
    throw new CliError(
      `--to-db ${JSON.stringify(name)} is not a valid MongoDB database name`,
      EXIT.usage,
      "use letters, digits, _ and -; at most 63 characters",
    );
  }
  return name;
}

function parseCollections(list: string): string[] {
  const names = [
    ...new Set(
      list
        .split(",")
        .map((name) => name.trim())
        .filter(Boolean),
    ),
  ];
  if (names.length === 0) throw new CliError("--collections needs at least one collection name", EXIT.usage, "e.g. --collections orders,customers");
  return names;
}
