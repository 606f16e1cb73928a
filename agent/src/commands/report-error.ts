// Turns any failure into the lines the user sees and the exit code, in one place:
//   dbvault-agent: <what happened, lowercase>
//   dbvault-agent: hint: <what to do>
// Secrets never reach here: the libraries' messages name hosts and key ids, never URIs or keys.
import {
  ArchiveError,
  CorruptChunkError,
  InvalidKeyError,
  NeedsIdentityError,
  NotAnArchiveError,
  TruncatedArchiveError,
  WrongKeyError,
} from "../archive/index.ts";
import { ConfigError } from "../config.ts";
import { DumpError } from "../dump/errors.ts";
import { MongodumpArchiveError } from "../dump/mongodump-archive/errors.ts";
import { formatCount } from "../ui/format.ts";
import { CliError, EXIT, type ExitCode } from "../cli-error.ts";

export interface ErrorReport {
  lines: string[];
  exitCode: ExitCode;
}

export interface ErrorContext {
  /** The config file the key came from, for the wrong-key hint. */
  configPath?: string;
}

/** Describes a failure for the terminal; never throws. */
export function describeFailure(error: unknown, context: ErrorContext = {}): ErrorReport {
  const lines: string[] = [];
  const report = (message: string, exitCode: ExitCode, hint?: string): ErrorReport => {
    lines.push(`dbvault-agent: ${lowerFirst(message)}`);
    if (hint) lines.push(`dbvault-agent: hint: ${hint}`);
    return { lines, exitCode };
  };
  if (error instanceof CliError) return report(error.message, error.exitCode, error.hint);
  if (error instanceof ConfigError) return report(error.message, EXIT.config, error.hint);
  if (error instanceof DumpError && error.code === "restore-incomplete") {
    for (const [namespace, stats] of Object.entries(error.stats?.collections ?? {})) {
      lines.push(`dbvault-agent: replaced ${namespace} with the backup's ${formatCount(stats.restored)} documents`);
    }
    const inner = describeFailure(error.cause, context);
    const exitCode = inner.exitCode === EXIT.verification ? EXIT.verification : EXIT.failure;
    return report(error.message, exitCode, error.hint);
  }
  if (error instanceof DumpError) {
    return report(error.message, error.code === "aborted" ? EXIT.interrupted : EXIT.failure, error.hint);
  }
  if (error instanceof WrongKeyError && error.keyringKeyIds.length > 1) {
    const where = context.configPath ? ` of ${context.configPath}` : "";
    return report(
      `wrong key: this backup was encrypted with the key whose id is ${error.fileKeyId}, and no key of the keyring${where} has that id (it holds ${error.keyringKeyIds.join(", ")})`,
      EXIT.verification,
      "import that key: on the machine that made the backup run dbvault-agent key export --all, then here dbvault-agent key import --add",
    );
  }
  if (error instanceof WrongKeyError) {
    const where = context.configPath ? ` in ${context.configPath}` : "";
    return report(
      `wrong key: this backup was encrypted with the key whose id is ${error.fileKeyId}, but the key${where} has id ${error.suppliedKeyId}`,
      EXIT.verification,
      "run dbvault-agent key export on the machine that made the backup, and use that key",
    );
  }
  if (error instanceof NeedsIdentityError) {
    return report(error.message, EXIT.verification, "pass the identity file saved when write-only mode was turned on: --identity FILE");
  }
  if (error instanceof InvalidKeyError) return report(error.message, EXIT.config);
  if (error instanceof NotAnArchiveError) {
    return report(error.message, EXIT.verification, "to seal a plain mongodump archive, use dbvault-agent encrypt");
  }
  if (error instanceof TruncatedArchiveError || error instanceof CorruptChunkError || error instanceof ArchiveError) {
    return report(error.message, EXIT.verification);
  }
  if (error instanceof MongodumpArchiveError) {
    return report(`the data is not a valid mongodump archive: ${error.message.replace(/^mongodump archive: /, "")}`, EXIT.verification);
  }
  const message = error instanceof Error ? error.message : String(error);
  return report(`unexpected error: ${message}`, EXIT.failure, "this is a bug if the message does not explain it; please report it");
}

function lowerFirst(text: string): string {
  // Only a leading capital of an ordinary word; acronyms ("URI", "EOF") and names with capitals
  // inside ("MongoDB", "FerretDB") stay as they are.
  return /^[A-Z][a-z]*(?![A-Za-z0-9_])/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text;
}
