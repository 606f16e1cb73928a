// The per-command help of the commands that talk to the server: `dbvault-agent help setup`,
// `help run`, `help db` (and `setup --help` etc.).

export const SETUP_HELP = `usage: dbvault-agent setup [--server URL] [--api-key-file PATH] [--db NAME --uri-file PATH |
                           --databases-file PATH] [--name NAME] [--config PATH] [--force]

Connects this machine to your DBVault account. It tests each database by connecting to it,
creates the master key (a config file that already has one keeps it), registers this agent
(name, hostname, platform, version) and the database names with the server, and writes the
config file readable by you alone (mode 0600; on Windows in your profile). The master key is printed once: store a copy away from this server.
Without it no backup can be restored; dbvault-agent key export prints it again on this machine.

Connection strings and the master key never leave this machine; the server only learns the
database names.

On a terminal, setup asks for whatever the options do not give (secrets are not echoed).
Secrets are never taken from the command line, where ps and shell history would show them:

  the API key           --api-key-file PATH (its first line; - reads stdin), else the
                        DBVAULT_API_KEY environment variable, else a prompt
  one database          --db NAME with its connection string from --uri-file PATH
                        (- reads stdin), else the DBVAULT_DB_URI environment variable,
                        else a prompt
  several databases     --databases-file PATH (- reads stdin): one NAME=CONNECTION-STRING a
                        line; blank lines and lines starting with # are skipped

options:
  --server URL         the DBVault server, e.g. https://dbvault.example.com (the /api the
                       web app shows in Settings → Security may be included)
  --name NAME          the agent's name in the web app (default: this machine's hostname)
  --force              register again a config file that is already set up (e.g. after the
                       API key was regenerated); its master key and databases are kept
  --config PATH        the config file (default: $XDG_CONFIG_HOME/dbvault/agent.json, else
                       ~/.config/dbvault/agent.json; on macOS ~/Library/Application
                       Support/DBVault/agent.json; on Windows %APPDATA%\\DBVault\\agent.json)

A NAME is 1 to 64 letters, digits, ".", "_", "-" or spaces. A connection string's path names
the database to back up (mongodb://user:pass@host/shop); without one, every database is.

example (a script; nothing secret in argv):
  DBVAULT_API_KEY=... dbvault-agent setup --server https://dbvault.example.com \\
    --db shop --uri-file /root/shop-uri.txt
`;

export const RUN_HELP = `usage: dbvault-agent run [--config PATH]

The agent service. It keeps a WebSocket open to the server named by setup (heartbeats every
15 s; after a drop it reconnects after 1 s, then 2 s, 4 s, and every 5 s), and runs what the
server asks: backups (dump, compress, encrypt and upload in parts as the dump is produced),
restores (download, verify and decrypt as it goes, restore), restart (re-read the config
file and reconnect), update (report the running version) and reset (store new connection
credentials). The config file is re-read before each job, so databases added with
dbvault-agent db add are used without a restart.

It logs one line per event on stderr (JSON lines unless stderr is a terminal); logs never
hold the API key, the master key or connection strings. SIGINT or SIGTERM stops it: a running
backup is aborted and reported failed, and it exits 0. docs/agent-service.md has a systemd unit.
`;

export const DB_HELP = `usage: dbvault-agent db add [--db NAME] [--uri-file PATH] [--config PATH]
       dbvault-agent db list [--config PATH]

db add tests the connection, registers the name with the server (the server never receives
the connection string) and adds it to the config file. The connection string comes from
--uri-file PATH (- reads stdin), else the DBVAULT_DB_URI environment variable, else a hidden
prompt on a terminal. A database past your plan's database limit is registered disabled.

db list prints each configured database's name and hosts (never the whole connection string).
`;

export const DECRYPT_HELP = `usage: dbvault-agent decrypt --in FILE --out ARCHIVE [--verify-first | --no-verify-first]
                             [--force] [--config PATH]

Turns a .enc.dbvault backup into the plain mongodump archive inside it, which
mongorestore --archive=ARCHIVE accepts anywhere. Needs only the master key that made the backup
(on a new machine: dbvault-agent key import).

Each chunk is written once it is authenticated, so a fault further on (a truncated or damaged
file) is found after correct bytes were written. Into a file that does no harm: ARCHIVE appears
only when whole. Into stdout it would: what was sent is gone, and a pipe into mongorestore
without pipefail restores part of a backup. So with --out - decrypt first verifies the whole
file (every chunk, and the decompression) writing nothing, then decrypts it; stdin is copied,
still encrypted, into a private temporary file to be read twice. On a fault nothing reaches
stdout and the exit code is 3.

options:
  --in FILE            the backup (- reads stdin)
  --out ARCHIVE        the mongodump archive to write (- for stdout, never a terminal)
  --verify-first       verify the whole file before writing, whatever ARCHIVE is
  --no-verify-first    with --out -, write as chunks are authenticated (one pass, no copy of
                       stdin); check the exit code (set -o pipefail) before trusting a restore
  --force              replace ARCHIVE when it exists
  --config PATH        the config file holding the master key

example:
  dbvault-agent decrypt --in shop.enc.dbvault --out - | mongorestore --archive
`;

/** The help of one command, when it has its own; undefined otherwise. */
export function findCommandHelp(command: string | undefined): string | undefined {
  if (command === "setup") return SETUP_HELP;
  if (command === "run") return RUN_HELP;
  if (command === "db") return DB_HELP;
  if (command === "decrypt") return DECRYPT_HELP;
  return undefined;
}
