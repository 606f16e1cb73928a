// Exit codes and the CLI's own error, documented in `help` and docs/agent-service.md (Exit codes).

export const EXIT = {
  ok: 0,
  /** Anything that went wrong at run time: database unreachable, a tool failed, I/O errors. */
  failure: 1,
  /** The command line is wrong. */
  usage: 2,
  /** A backup file or archive failed verification or decryption (wrong key, damage, not a backup). */
  verification: 3,
  /** The config file is missing, unreadable, too open, invalid, or lacks what the command needs. */
  config: 4,
  /**
   * `run`: the server removed this agent (EX_CONFIG in sysexits.h). The systemd unit does not
   * restart on it (RestartPreventExitStatus=78): reconnecting would be refused forever.
   */
  removed: 78,
  /**
   * `run` under the relauncher (Windows; update/restart.ts): an update was installed, start the
   * binary again (EX_TEMPFAIL in sysexits.h).
   */
  restart: 75,
  /** Interrupted (SIGINT/SIGTERM), as shells report it. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error the CLI reports as is: a lowercase message, an optional hint, an exit code. */
export class CliError extends Error {
  override readonly name = "CliError";
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** A usage error (exit 2) with the usual hint; never throws. */
export function usageError(message: string, hint = "run dbvault-agent help for usage"): CliError {
  return new CliError(message, EXIT.usage, hint);
}
