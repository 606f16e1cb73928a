// Where `restore` writes: a database of the config file (--db NAME), or any MongoDB named by its
// connection string (--uri, --uri-file, $DBVAULT_DB_URI), so that a machine holding only the
// imported master key can restore with no server and no database entry. A connection string
// with a password is never taken from argv, where ps and shell history would show it.
import { type AgentConfig, findDatabase } from "../config.ts";
import { describeUriHosts, hasUriPassword, readUriDatabase } from "../dump/index.ts";
import { usageError } from "../cli-error.ts";
import type { CommandContext } from "./context.ts";
import type { ParsedOptions } from "./parse-args.ts";
import { checkUri, DB_URI_ENV, firstLine, readSecretFile } from "./setup-inputs.ts";

export interface RestoreTarget {
  uri: string;
  /** What the messages call it: the database entry's name, or the URI's database or hosts. */
  label: string;
  /** False when the database entry says usersAndRoles: false. */
  usersAndRoles: boolean;
}

/** The restore's target from the options; throws CliError (usage) or ConfigError (unknown database). */
export async function chooseRestoreTarget(options: ParsedOptions, config: AgentConfig, path: string, context: CommandContext): Promise<RestoreTarget> {
  const given = ["db", "uri", "uri-file"].filter((name) => typeof options[name] === "string");
  if (given.length > 1) throw usageError(`restore: give one of --db NAME, --uri URI or --uri-file PATH, not ${given.map((name) => `--${name}`).join(" and ")}`);
  if (typeof options.db === "string") {
    const entry = findDatabase(config, options.db, path);
    return { uri: entry.uri, label: entry.name, usersAndRoles: entry.usersAndRoles !== false };
  }
  let uri: string;
  if (typeof options.uri === "string") {
    uri = options.uri;
    if (hasUriPassword(uri)) {
      throw usageError(
        "restore: --uri must not hold a password (ps and shell history would show it)",
        `put the connection string in a file and pass --uri-file PATH (- reads stdin), or set ${DB_URI_ENV}`,
      );
    }
  } else if (typeof options["uri-file"] === "string") uri = firstLine(await readSecretFile(options["uri-file"], context));
  else if (context.io.env[DB_URI_ENV]) uri = context.io.env[DB_URI_ENV]!.trim();
  else {
    throw usageError(
      "restore: missing --db NAME (a database of the config file) or --uri URI",
      "with no database in the config file, name the MongoDB to restore into: --uri mongodb://localhost:27017/shop",
    );
  }
  checkUri("restore", "the connection string to restore into", uri);
  const database = readUriDatabase(uri);
  return { uri, label: database ?? `the databases at ${describeUriHosts(uri)}`, usersAndRoles: true };
}
