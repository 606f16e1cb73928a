// Asking for databases on a terminal (setup, db add), each connection tested as soon as it is
// typed: a mistake is explained and asked again at once, and what was already answered (the API
// key, the name) is kept. A config that already has databases keeps each one when Enter is
// pressed (setup --force).
import type { DatabaseEntry } from "../config.ts";
import { CliError, EXIT } from "../cli-error.ts";
import type { CommandContext } from "./context.ts";
import { checkConnection, ConnectionCheckError, describeFailedCheck } from "./database-check.ts";
import { InputEndedError, type Prompter } from "../ui/prompt.ts";
import { checkName } from "./setup-inputs.ts";

/** Answers asked again after a mistake, at most this many times for one question. */
const ATTEMPTS = 5;

/**
 * Asks for the databases: for each one the config already has, a new connection string or Enter
 * to keep it; then new ones until the user has no more (at least one when there were none).
 * Answers the new and changed entries, every one tested; throws CliError after ATTEMPTS mistakes.
 */
export async function promptDatabases(command: string, context: CommandContext, prompter: Prompter, existing: DatabaseEntry[]): Promise<DatabaseEntry[]> {
  const entries: DatabaseEntry[] = [];
  if (existing.length > 0) context.say(`this config already has ${existing.map((entry) => `"${entry.name}"`).join(", ")}: press Enter to keep each as it is`);
  for (const old of existing) {
    const uri = await askConnectionString(context, prompter, old.name, true);
    if (uri !== undefined) entries.push({ ...old, uri });
  }
  if (existing.length > 0 && !/^y(es)?$/i.test(await prompter.ask("add another database? [y/N] "))) return entries;
  const taken = () => [...existing, ...entries].map((entry) => entry.name);
  for (;;) {
    entries.push(await askDatabase(command, context, prompter, taken()));
    if (!/^y(es)?$/i.test(await prompter.ask("add another database? [y/N] "))) return entries;
  }
}

/** Asks for one new database (a name not in `taken`, a connection string that works); answers it tested. */
export async function askDatabase(command: string, context: CommandContext, prompter: Prompter, taken: string[]): Promise<DatabaseEntry> {
  const name = await askAgain(context, async () => {
    const answer = await prompter.ask("database display name (e.g. shop): ");
    checkName(command, answer);
    if (taken.includes(answer)) throw new CliError(`"${answer}" is already a database of this config`, EXIT.usage, "choose another display name");
    return answer;
  });
  return { name, uri: (await askConnectionString(context, prompter, name, false))! };
}

/**
 * Asks for the connection string of `name` until one connects; with `keep`, Enter answers
 * undefined (keep the saved one). Throws CliError after ATTEMPTS failures.
 */
async function askConnectionString(context: CommandContext, prompter: Prompter, name: string, keep: boolean): Promise<string | undefined> {
  const question = keep
    ? `connection string of "${name}" (Enter keeps the saved one; not shown): `
    : `connection string of "${name}" (e.g. mongodb://user:password@localhost:27017/${name}; not shown): `;
  return askAgain(context, async () => {
    const uri = await prompter.askSecret(question);
    if (keep && uri === "") return undefined;
    try {
      const host = await checkConnection(uri);
      context.say(`connected to "${name}" at ${host}`);
      return uri;
    } catch (error) {
      throw error instanceof ConnectionCheckError ? describeFailedCheck(name, error) : error;
    }
  });
}

/** Runs `ask` until it answers, telling what was wrong after each CliError; throws the last one after ATTEMPTS. */
async function askAgain<T>(context: CommandContext, ask: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ask();
    } catch (error) {
      if (!(error instanceof CliError) || error instanceof InputEndedError || error.exitCode === EXIT.interrupted || attempt >= ATTEMPTS) throw error;
      context.say(error.message.replace(/^[a-z ]+: (?=")/, ""));
      if (error.hint) context.say(`hint: ${error.hint.replace(/; nothing was saved$/, "")}`);
    }
  }
}
