// The CLI's dispatcher: command word → command function; any failure → describeFailure's lines
// and exit code. In-process and stream-based, so tests can run it without a subprocess.
import { describeFailure } from "./report-error.ts";
import { usageError } from "../cli-error.ts";
import { type CliIo, createCommandContext, type CommandContext } from "./context.ts";
import { describeVersion, HELP_TEXT } from "./help.ts";
import { findCommandHelp, HELP_TOPICS } from "./help-topics.ts";

type Command = (args: string[], context: CommandContext) => Promise<number>;

// Each command's module loads only when it runs: the file commands (encrypt, decrypt) then start
// without evaluating the MongoDB driver, the daemon and the rest (~60 ms and ~40 MB of a
// 100 MB encrypt; bench/seal-cli.ts).
const lazy =
  <Module>(load: () => Promise<Module>, pick: (module: Module) => Command): Command =>
  async (args, context) =>
    pick(await load())(args, context);

const COMMANDS: Record<string, Command> = {
  setup: lazy(
    () => import("./setup.ts"),
    (m) => m.runSetupCommand,
  ),
  run: lazy(
    () => import("./run.ts"),
    (m) => m.runDaemonCommand,
  ),
  db: lazy(
    () => import("./db.ts"),
    (m) => m.runDbCommand,
  ),
  copies: lazy(
    () => import("./copies.ts"),
    (m) => m.runCopiesCommand,
  ),
  status: lazy(
    () => import("./status.ts"),
    (m) => m.runStatusCommand,
  ),
  list: lazy(
    () => import("./list.ts"),
    (m) => m.runListCommand,
  ),
  backup: lazy(
    () => import("./backup.ts"),
    (m) => m.runBackupCommand,
  ),
  dump: lazy(
    () => import("./dump.ts"),
    (m) => m.runDumpCommand,
  ),
  restore: lazy(
    () => import("./restore.ts"),
    (m) => m.runRestoreCommand,
  ),
  encrypt: lazy(
    () => import("./encrypt.ts"),
    (m) => m.runEncryptCommand,
  ),
  decrypt: lazy(
    () => import("./decrypt.ts"),
    (m) => m.runDecryptCommand,
  ),
  verify: lazy(
    () => import("./verify.ts"),
    (m) => m.runVerifyCommand,
  ),
  key: lazy(
    () => import("./key.ts"),
    (m) => m.runKeyCommand,
  ),
  service: lazy(
    () => import("./service.ts"),
    (m) => m.runServiceCommand,
  ),
  async version(args, context) {
    if (args.length > 0) throw usageError(`version: unexpected argument "${args[0]}"`);
    context.io.stdout.write(`${describeVersion()}\n`);
    return 0;
  },
  async help(args, context) {
    if (args.length > 1) throw usageError(`help: unexpected argument "${args[1]}"`);
    const topic = args[0];
    const text = topic === undefined || topic === "help" ? HELP_TEXT : findCommandHelp(topic);
    if (text === undefined) throw usageError(`help: no command "${topic}" (commands: ${HELP_TOPICS.join(", ")})`);
    context.io.stdout.write(text);
    return 0;
  },
};

/** Runs one command line; returns the exit code (see EXIT). Never throws. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const context = createCommandContext(io);
  const [name, ...args] = argv;
  let configPath: string | undefined;
  try {
    if (name === undefined) {
      io.stderr.write(HELP_TEXT);
      return 2;
    }
    if (name === "--help" || name === "-h") return await COMMANDS.help!(args, context);
    if (name === "--version") return await COMMANDS.version!(args, context);
    const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (!command) throw usageError(`unknown command "${name}"`);
    if (args.includes("--help")) return await COMMANDS.help!([name], context);
    configPath = findConfigArgument(args, io);
    return await command(args, context);
  } catch (error) {
    const report = describeFailure(error, { configPath });
    io.stderr.write(`${report.lines.join("\n")}\n`);
    return report.exitCode;
  }
}

function findConfigArgument(args: string[], io: CliIo): string {
  const index = args.findIndex((arg) => arg === "--config" || arg.startsWith("--config="));
  const explicit = index < 0 ? undefined : args[index]!.includes("=") ? args[index]!.slice(9) : args[index + 1];
  return createCommandContext(io).configPath(explicit);
}
