// The help text and the version line: what `help`, `version` and usage errors show.
import { AGENT_VERSION } from "../dump/index.ts";

export const HELP_TEXT = `usage: dbvault-agent <command> [options]

commands:
  dump --db NAME --out FILE      dump a database of the config file, compress and encrypt it
                                 into FILE (.enc.dbvault)
  restore --db NAME --in FILE    restore a .enc.dbvault backup into a database of the config
                                 file, replacing the collections the backup holds
  encrypt --in ARCHIVE --out FILE
                                 seal a mongodump archive (mongodump --archive) into FILE
  decrypt --in FILE --out ARCHIVE
                                 turn a .enc.dbvault backup into a mongodump archive that
                                 mongorestore --archive accepts
  verify --in FILE [--json]      decrypt and check a whole backup without restoring it, and
                                 list its namespaces and document counts
  key generate [--force]         create the config file's master key
  key export                     print the master key (keep it secret, keep a copy)
  version                        print the version
  help                           print this help

options:
  --config PATH        the config file (default: $XDG_CONFIG_HOME/dbvault/agent.json,
                       else ~/.config/dbvault/agent.json)
  --compression ALGO   zstd (default), gzip or none (dump, encrypt)
  --force              replace an existing output file, or key (key generate)
  --quiet              no progress display
  FILE or ARCHIVE may be - for stdin or stdout (encrypt, decrypt, verify; restore --in;
  dump --out).

exit codes:
  0  success
  1  failure (database unreachable, tool or I/O error, partial restore)
  2  usage error
  3  verification or decryption failed (wrong key, damaged or foreign file)
  4  config problem (missing, unreadable, readable by others, invalid, no key)
  130 interrupted
`;

/** The `version` line; never throws. */
export function describeVersion(): string {
  return `dbvault-agent ${AGENT_VERSION} (${process.platform}-${process.arch}, bun ${Bun.version})`;
}
