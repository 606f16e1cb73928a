// The help text and the version line: what `help`, `version` and usage errors show.
import { AGENT_PLATFORM, AGENT_VERSION } from "../build-info.ts";

export const HELP_TEXT = `usage: dbvault-agent <command> [options]

commands:
  setup                          connect this machine to your DBVault account: test the
                                 databases, create the master key, register the agent
                                 (see dbvault-agent help setup)
  run                            the agent service: keep connected to the server and run the
                                 backups and restores it asks for (dbvault-agent help run)
  status [--json]                what the server knows of this agent: whether run is
                                 connected, each database's last and next backup and
                                 point-in-time lag, the work queued (dbvault-agent help status)
  list [--db NAME] [--limit N] [--json]
                                 the backups of this agent's databases, newest first
  backup now [--db NAME]         back a database up now, as the web app's Trigger Backup does
                                 (the plan's manual-backup limit applies)
  db add --db NAME               add a database later, with or without a server
                                 (dbvault-agent help db)
  db list                        list the configured databases (names and hosts)
  copies add|list|remove s3://BUCKET/PREFIX?endpoint=…
                                 copy each backup to a bucket of yours as well; its
                                 credentials stay on this machine (dbvault-agent help copies)
  copies check [--json]          check that the copies are still there as written
  dump --db NAME --out FILE      dump a database of the config file, compress and encrypt it
                                 into FILE (.enc.dbvault)
  restore --db NAME|--uri URI --in FILE [--to-db TARGET] [--collections a,b] [--json]
                                 verify a whole .enc.dbvault backup, then restore it into a
                                 database of the config file or the one URI names (or into
                                 TARGET on the same connection), replacing or creating the
                                 collections it holds (or those chosen), each swapped in only
                                 once all were restored; needs only the master key
  encrypt --in ARCHIVE --out FILE
                                 seal a mongodump archive (mongodump --archive) into FILE
  decrypt --in FILE --out ARCHIVE
                                 turn a .enc.dbvault backup into an uncompressed mongodump
                                 archive that mongorestore --archive accepts (without --gzip)
  verify --in FILE [--json]      decrypt and check a whole backup without restoring it, and
                                 list its namespaces and document counts
  key generate [--force]         create the config file's master key
  key export [--all]             print the master key, or the whole keyring (keep it secret,
                                 keep a copy)
  key import [--key-file PATH] [--force] [--add]
                                 put a saved master key or keyring into the config (prompt,
                                 file or stdin; never an argument): a new machine after a disaster
  key rotate [--rewrap]          a new master key for new backups; older keys stay in the
                                 keyring; --rewrap rewraps every stored backup to it
  key rewrap                     finish a rewrap that was stopped
  service install|uninstall|status [--user]
                                 run the agent as a systemd service (system-wide as root,
                                 else a user service); without systemd, install nothing,
                                 exit 1 and say how to run it
  version                        print the version
  help [COMMAND]                 print this help, or a command's own (also: COMMAND --help)

options:
  --config PATH        the config file (default: $XDG_CONFIG_HOME/dbvault/agent.json,
                       else ~/.config/dbvault/agent.json; on macOS ~/Library/Application
                       Support/DBVault/agent.json; on Windows %APPDATA%\\DBVault\\agent.json)
  --compression ALGO   zstd (default), gzip or none (dump, encrypt)
  --force              replace an existing output file, or key (key generate)
  --quiet              no progress display
  --no-users-and-roles with a database entry for every database (or admin): leave admin's
                       users and roles out of the backup (dump) or do not restore them
                       (restore); usersAndRoles: false in the entry does so always
  FILE or ARCHIVE may be - for stdin or stdout (encrypt, decrypt, verify; restore --in;
  dump --out).

exit codes:
  0  success (run: stopped by SIGINT or SIGTERM)
  1  failure (database unreachable, tool or I/O error, partial restore, the server
     unreachable or refusing the API key or the request, e.g. backup now before the plan
     allows)
  2  usage error
  3  verification or decryption failed (wrong key, damaged or foreign file)
  4  config problem (missing, unreadable, readable by others, invalid, no key, not set
     up for run, already set up for setup without --force)
  78 run: this agent was removed from DBVault (connect it again with setup --force)
  130 interrupted
`;

/** The `version` line; never throws. */
export function describeVersion(): string {
  return `dbvault-agent ${AGENT_VERSION} (${AGENT_PLATFORM}, bun ${Bun.version})`;
}
