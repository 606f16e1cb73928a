// Where setup and db add find their secrets, so that none has to appear in argv (visible in ps
// and shell history): a file, stdin ("-"), an environment variable, or a hidden prompt on a
// terminal. Values are never printed back.
import { readFile } from "node:fs/promises";
import { type DatabaseEntry, isValidDatabaseName } from "../config.ts";
import { CliError, EXIT, usageError } from "../cli-error.ts";
import type { CommandContext } from "./context.ts";
import type { ParsedOptions } from "./parse-args.ts";
import type { Prompter } from "../ui/prompt.ts";
import { findConnectionStringProblem } from "./connection-string-check.ts";

export const API_KEY_ENV = "DBVAULT_API_KEY";
export const DB_URI_ENV = "DBVAULT_DB_URI";

export const NAME_RULE = 'a database name is 1 to 64 letters, digits, ".", "_", "-" or spaces, starting with a letter or digit';

/** Reads a whole file, or stdin for "-"; throws CliError (exit 1) naming the file. */
export async function readSecretFile(path: string, context: CommandContext): Promise<string> {
  if (path === "-") {
    const chunks: Buffer[] = [];
    for await (const chunk of context.io.stdin) chunks.push(Buffer.from(chunk as Buffer));
    return Buffer.concat(chunks).toString("utf8");
  }
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new CliError(`cannot read ${path} (${code})`, EXIT.failure);
  }
}

/** Refuses two options that would both read stdin; throws CliError (usage). */
export function checkOneStdinReader(command: string, options: ParsedOptions, names: string[]): void {
  const readers = names.filter((name) => options[name] === "-");
  if (readers.length > 1) throw usageError(`${command}: only one of ${readers.map((n) => `--${n}`).join(", ")} can read stdin (-)`);
}

/** The API key from --api-key-file, $DBVAULT_API_KEY or a hidden prompt; throws CliError (usage) when none. */
export async function readApiKey(command: string, options: ParsedOptions, context: CommandContext, prompter: Prompter | null): Promise<string> {
  let key: string | undefined;
  if (typeof options["api-key-file"] === "string") key = firstLine(await readSecretFile(options["api-key-file"], context));
  else if (context.io.env[API_KEY_ENV]) key = context.io.env[API_KEY_ENV]!.trim();
  else if (prompter) key = await prompter.askSecret("API key (Settings → Security in the web app; not shown): ");
  else throw usageError(`${command}: missing the API key`, `pass --api-key-file PATH (- for stdin) or set ${API_KEY_ENV}; see dbvault-agent help setup`);
  if (!key || /\s/.test(key)) throw usageError(`${command}: the API key is empty or contains spaces`, "copy it again from Settings → Security in the web app");
  return key;
}

/** The one database of --db NAME with its connection string from --uri-file or $DBVAULT_DB_URI. */
export async function readSingleDatabase(command: string, options: ParsedOptions, context: CommandContext, prompter: Prompter | null): Promise<DatabaseEntry> {
  const name = typeof options.db === "string" ? options.db : prompter ? await prompter.ask("database display name: ") : undefined;
  if (name === undefined) throw usageError(`${command}: missing --db NAME`);
  checkName(command, name);
  let uri: string | undefined;
  if (typeof options["uri-file"] === "string") uri = firstLine(await readSecretFile(options["uri-file"], context));
  else if (context.io.env[DB_URI_ENV]) uri = context.io.env[DB_URI_ENV]!.trim();
  else if (prompter) uri = await prompter.askSecret(`connection string of "${name}" (mongodb://…; not shown): `);
  else
    throw usageError(
      `${command}: missing the connection string of "${name}"`,
      `pass --uri-file PATH (- for stdin) or set ${DB_URI_ENV}; see dbvault-agent help ${command}`,
    );
  checkUri(command, `the connection string of "${name}"`, uri);
  return { name, uri };
}

/** Parses a databases file: one `NAME=URI` a line, blank lines and `#` comments skipped; throws CliError (usage). */
export function parseDatabasesText(command: string, text: string): DatabaseEntry[] {
  const entries: DatabaseEntry[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const equals = line.indexOf("=");
    if (equals < 0) throw usageError(`${command}: line ${index + 1} of the databases file is not NAME=CONNECTION-STRING`);
    const entry = { name: line.slice(0, equals).trim(), uri: line.slice(equals + 1).trim() };
    checkName(command, entry.name);
    checkUri(command, `the connection string of "${entry.name}"`, entry.uri);
    if (entries.some((other) => other.name === entry.name)) throw usageError(`${command}: the database "${entry.name}" is listed twice`);
    entries.push(entry);
  });
  if (entries.length === 0) throw usageError(`${command}: the databases file lists no database`);
  return entries;
}

/** Refuses a display name the config and the server would refuse; throws CliError (usage) with the rule. */
export function checkName(command: string, name: string): void {
  if (!isValidDatabaseName(name)) throw usageError(`${command}: "${name}" is not a valid database name`, NAME_RULE);
}

/** Refuses what is not a MongoDB connection string, saying what it should look like; throws CliError (usage). */
export function checkUri(command: string, what: string, uri: string | undefined): asserts uri is string {
  // Never quote the value: a mistyped connection string still holds a password.
  const problem = findConnectionStringProblem(uri ?? "");
  if (problem) throw usageError(`${command}: ${what} is not usable: ${problem.problem}`, problem.hint);
}

/** The first line of a file that is not blank, trimmed. */
export function firstLine(text: string): string {
  return (text.split(/\r?\n/).find((line) => line.trim() !== "") ?? "").trim();
}
