// A small strict argument parser: `--name value`, `--name=value` and boolean flags; "-" is a
// value (stdin/stdout). Its messages are the CLI's own, so usage errors read like every other.
import { usageError } from "../cli-error.ts";

export type OptionSpec = Record<string, "string" | "boolean">;
export type ParsedOptions = Record<string, string | boolean | undefined>;

/** Parses the arguments after the command word; throws CliError (usage) on anything unexpected. */
export function parseOptions(command: string, args: string[], spec: OptionSpec): ParsedOptions {
  const parsed: ParsedOptions = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith("--") || arg === "--") throw usageError(`${command}: unexpected argument "${arg}"`);
    const equals = arg.indexOf("=");
    const name = arg.slice(2, equals < 0 ? undefined : equals);
    const kind = spec[name];
    if (kind === undefined) throw usageError(`${command}: unknown option --${name}`);
    if (parsed[name] !== undefined) throw usageError(`${command}: --${name} is given twice`);
    if (kind === "boolean") {
      if (equals >= 0) throw usageError(`${command}: --${name} takes no value`);
      parsed[name] = true;
      continue;
    }
    let value: string | undefined;
    if (equals >= 0) value = arg.slice(equals + 1);
    else {
      value = args[i + 1];
      if (value === undefined || (value.startsWith("--") && value.length > 2)) throw usageError(`${command}: --${name} needs a value`);
      i++;
    }
    if (value === "") throw usageError(`${command}: --${name} needs a value`);
    parsed[name] = value;
  }
  return parsed;
}

/** Returns a string option that must be present; throws CliError (usage) naming it. */
export function requireString(command: string, options: ParsedOptions, name: string, what: string): string {
  const value = options[name];
  if (typeof value !== "string") throw usageError(`${command}: missing --${name} ${what}`);
  return value;
}
