// Each command's own help: `dbvault-agent help COMMAND` and `COMMAND --help`. Every one names
// all of the command's options and ends with an example (checked by the golden CLI tests).
import { OPERATOR_LIST_DEFAULT, OPERATOR_LIST_MAX } from "../../../protocol/operator";

export const SETUP_HELP = `usage: dbvault-agent setup [--server URL] [--api-key-file PATH] [--db NAME --uri-file PATH |
                           --databases-file PATH] [--name NAME] [--config PATH] [--force]
                           [--key-mode write-only [--identity-out FILE] [--keyring-out FILE]]
                           [--role restore --identity FILE] [--setup-code CODE]

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
  --name NAME          the agent's name in the web app (default: this machine's hostname and
                       the end of the agent's id, e.g. db-host-3f2a). --force keeps the name
                       the agent has; after it was removed, it is a new agent with a new name
  --force              register again a config file that is already set up (e.g. after the
                       agent was reset or removed in the web app); its master key and
                       databases are kept. A regenerated API key does not need it: agents
                       already set up run on their own credentials. The agent's own
                       credentials in the config file let it register again; when they no
                       longer work, the server answers a one-time code that a user approves
                       in the web app (Settings → Agents → Approve a set-up code)
  --setup-code CODE    (with --force) that code, once approved
  --key-mode MODE      master-key (default: a master key here opens every backup) or
                       write-only: only a public key stays here, so nothing on this machine
                       opens a backup; the private key goes to --identity-out FILE (0600) or
                       is printed once. A master key already here is saved to --keyring-out FILE
  --role ROLE          backup (default) or restore: a restore agent (a laptop, a recovery
                       host) keeps the identity of write-only agents in its config and runs
                       the verifications, drills and restores of the backups sealed to it,
                       on its own connection to each database NAME; it runs no backup
  --identity FILE      (with --role restore) the identity file key mode write-only wrote
  --config PATH        the config file (default: $XDG_CONFIG_HOME/dbvault/agent.json, else
                       ~/.config/dbvault/agent.json; on macOS ~/Library/Application
                       Support/DBVault/agent.json; on Windows %APPDATA%\\DBVault\\agent.json)

A NAME is 1 to 64 letters, digits, ".", "_", "-" or spaces. A connection string's path names
the database to back up (mongodb://user:pass@host/shop); without one, every database is.

example (a script; nothing secret in argv):
  DBVAULT_API_KEY=... dbvault-agent setup --server https://dbvault.example.com \\
    --db shop --uri-file /root/shop-uri.txt
example (a restore agent for a write-only agent's backups):
  dbvault-agent setup --role restore --identity /media/usb/identity.txt --db shop --uri-file uri.txt
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
backup is aborted and reported failed, and it exits 0. To have it start at boot and restart
after a failure, install it as a service (dbvault-agent help service).

options:
  --config PATH        the config file setup wrote (default: see dbvault-agent help)

example:
  dbvault-agent run --config /etc/dbvault/agent.json
`;

export const DB_HELP = `usage: dbvault-agent db add [--db NAME] [--uri-file PATH] [--config PATH]
       dbvault-agent db list [--config PATH]

db add tests the connection, registers the name with the server (the server never receives
the connection string) and adds it to the config file. The connection string comes from
--uri-file PATH (- reads stdin), else the DBVAULT_DB_URI environment variable, else a hidden
prompt on a terminal. A database past your plan's database limit is registered disabled.

Without a DBVault server in the config file (a new machine with only an imported master key),
db add still tests the connection and saves the database; nothing is registered then, and
dbvault-agent setup --server URL registers it with the others later.

db list prints each configured database's name and hosts (never the whole connection string).

options:
  --db NAME            the display name (the web app shows it; asked on a terminal when absent)
  --uri-file PATH      a file whose first line is the connection string (- reads stdin)
  --config PATH        the config file (default: see dbvault-agent help)

example:
  dbvault-agent db add --db crm --uri-file /root/crm-uri.txt
`;

export const COPIES_HELP = `usage: dbvault-agent copies add s3://BUCKET/PREFIX?endpoint=URL&region=REGION [--profile NAME]
           [--object-lock compliance|governance [--retain-days N]] [--config PATH]
       dbvault-agent copies list [--config PATH]
       dbvault-agent copies remove s3://BUCKET/PREFIX?endpoint=URL&region=REGION [--config PATH]
       dbvault-agent copies check [--sample N|all] [--json] [--config PATH]

copies add makes every backup exist in a second place you own: after each upload to DBVault,
the agent writes the same encrypted file to PREFIX/DATABASE/FILE in your bucket. The bucket's
credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, else the AWS profile
(--profile or AWS_PROFILE, in ~/.aws/credentials), else a prompt on a terminal; they are kept
in the config file (mode 0600) and never sent to the DBVault server. copies add writes and
deletes a test object first, and saves nothing when that fails.

With --object-lock, each copy is written with an S3 Object Lock retention of --retain-days
days (default: the bucket's default retention), so that whoever takes this machine and the
bucket's credentials cannot delete or overwrite it before then (compliance: nobody can;
governance: only with s3:BypassGovernanceRetention). The bucket must have versioning and Object
Lock on, and the lock must last at least as long as DBVault keeps your backups.

copies list prints each destination (never its credentials). copies remove forgets one; the
files already copied stay in the bucket. A connected agent asks the DBVault server first: while
Protect backups is on for the account, the destination stays and the answer says until when.

copies check looks at every copy of this agent's backups: a HEAD of each (its size and ETag as
written) and one copy, chosen at random, read back whole (its SHA-256 as written). What it
finds goes to DBVault, which alerts (e-mail and the copy.missing / copy.changed webhooks) when
a copy is gone or changed. dbvault-agent run does this once a day by itself. Exit 1 when a copy
is missing, changed or could not be checked.

options:
  --profile NAME       the AWS profile to read the credentials from
  --object-lock MODE   copies add: lock each copy, compliance or governance
  --retain-days N      copies add: lock each copy N days (default: the bucket's default retention)
  --sample N|all       copies check: how many copies to read back whole (default 1)
  --json               copies check: print the results as one JSON object
  --config PATH        the config file (default: see dbvault-agent help)

example:
  dbvault-agent copies add "s3://acme-backups/dbvault?endpoint=https://s3.eu-west-1.amazonaws.com&region=eu-west-1"
`;

/** The options every command that reads the config file takes. */
const CONFIG_OPTIONS = `  --config PATH        the config file (default: see dbvault-agent help)
  --quiet              no progress display`;

export const DUMP_HELP = `usage: dbvault-agent dump --db NAME --out FILE [--compression ALGO] [--force]
                          [--no-users-and-roles] [--config PATH] [--quiet]

Dumps a database of the config file (mongodump when it is installed, else the built-in
engine), compresses and encrypts it with the master key into FILE (.enc.dbvault), the same file
a scheduled backup makes. FILE may be - for stdout. A failed dump leaves no FILE behind.

options:
  --db NAME            the database's display name in the config file (dbvault-agent db list)
  --out FILE           where the backup goes (- for stdout)
  --compression ALGO   zstd (default), gzip or none
  --force              replace FILE when it exists
  --no-users-and-roles with a database entry for every database (or admin): leave admin's
                       users and roles out of the backup
${CONFIG_OPTIONS}

example:
  dbvault-agent dump --db shop --out shop-2026-11-27.enc.dbvault
`;

export const RESTORE_HELP = `usage: dbvault-agent restore (--db NAME | --uri URI | --uri-file PATH) --in FILE
                             [--oplog DIR --until TIME] [--to-db TARGET] [--collections a,b]
                             [--json] [--no-users-and-roles] [--identity FILE] [--config PATH]
                             [--quiet]

Verifies the whole .enc.dbvault backup first (every chunk, the key, every checksum), then
restores it. Nothing is changed unless the whole file is good. Each collection in the backup
(or each chosen) is restored beside the original and swapped in only once all were restored:
it replaces the collection of that name, or creates it; other collections are left as they
are. Needs only the master key in the config file: no DBVault server.

The database restored into is one of the config file (--db NAME), or any MongoDB named by its
connection string: --uri URI when it holds no password (ps and shell history would show it),
else --uri-file PATH (its first line; - reads stdin) or the DBVAULT_DB_URI environment variable.

options:
  --db NAME            a database of the config file (dbvault-agent db list)
  --uri URI            a connection string without a password, e.g. mongodb://localhost:27017
  --uri-file PATH      a file whose first line is the connection string (- reads stdin)
  --in FILE            the backup (.enc.dbvault, as downloaded from the web app; - for stdin)
  --from-copy          --in names a file in your own bucket (dbvault-agent copies add), as
                       s3://BUCKET/KEY or KEY: read it from there, not from disk
  --identity FILE      the identity file of a write-only agent (key mode write-only wrote it)
  --to-db TARGET       restore into the database TARGET on the same connection instead (a copy)
  --collections a,b    restore only these collections of the backup
  --json               also print {"restored","failed","collections"} on stdout
  --no-users-and-roles with a backup of every database (or admin): do not restore admin's
                       users and roles
  --oplog DIR          point-in-time recovery: the oplog slices (.enc.dbvault files) shipped
                       after the backup (the restore wizard's "Download for an offline
                       restore" gives them as a zip: unzip it into DIR); the whole chain is
                       checked (key, database, none missing, contiguous, covering --until)
                       before anything is changed
  --until TIME         with --oplog: restore to this moment, an ISO time to the second
                       (2026-11-27T14:37:05Z: every write of that second) or an oplog
                       position seconds,increment (1795760102,22); transactions count whole,
                       when they committed
${CONFIG_OPTIONS}

example (a new machine with only the saved master key, see dbvault-agent help key):
  dbvault-agent restore --uri mongodb://localhost:27017/shop --in shop.enc.dbvault --to-db shop_copy

example (the database as it was at 14:37:05, from a backup and the slices after it):
  dbvault-agent restore --db shop --in shop.enc.dbvault --oplog slices/ --until 2026-11-27T14:37:05Z
`;

export const ENCRYPT_HELP = `usage: dbvault-agent encrypt --in ARCHIVE --out FILE [--compression ALGO] [--force]
                             [--config PATH]

Seals a mongodump archive (mongodump --archive=ARCHIVE) with the master key of the config file
into a .enc.dbvault FILE, checking every document's checksum on the way. ARCHIVE and FILE may
be - for stdin and stdout.

options:
  --in ARCHIVE         the mongodump archive (- reads stdin)
  --out FILE           the backup file to write (- for stdout)
  --compression ALGO   zstd (default), gzip or none
  --force              replace FILE when it exists
${CONFIG_OPTIONS}

example:
  mongodump --archive --db shop | dbvault-agent encrypt --in - --out shop.enc.dbvault
`;

export const DECRYPT_HELP = `usage: dbvault-agent decrypt --in FILE --out ARCHIVE [--verify-first | --no-verify-first]
                             [--force] [--identity FILE] [--config PATH]

Turns a .enc.dbvault backup into the plain mongodump archive inside it, which
mongorestore --archive=ARCHIVE accepts anywhere. Needs only the master key that made the backup
(on a new machine: dbvault-agent key import). The archive is uncompressed, even when it was sealed
from a mongodump --gzip archive: restore it without --gzip.

Each chunk is written once it is authenticated, so a fault further on (a truncated or damaged
file) is found after correct bytes were written. Into a file that does no harm: ARCHIVE appears
only when whole. Into stdout it would: what was sent is gone, and a pipe into mongorestore
without pipefail restores part of a backup. So with --out - decrypt first verifies the whole
file (every chunk, and the decompression) writing nothing, then decrypts it; stdin is copied,
still encrypted, into a private temporary file to be read twice. On a fault nothing reaches
stdout and the exit code is 3.

options:
  --in FILE            the backup (- reads stdin)
  --from-copy          --in names a file in your own bucket (dbvault-agent copies add), as
                       s3://BUCKET/KEY or KEY: read it from there, not from disk
  --out ARCHIVE        the mongodump archive to write (- for stdout, never a terminal)
  --identity FILE      the identity file of a write-only agent (key mode write-only wrote it)
  --verify-first       verify the whole file before writing, whatever ARCHIVE is
  --no-verify-first    with --out -, write as chunks are authenticated (one pass, no copy of
                       stdin); check the exit code (set -o pipefail) before trusting a restore
  --force              replace ARCHIVE when it exists
${CONFIG_OPTIONS}

example:
  dbvault-agent decrypt --in shop.enc.dbvault --out - | mongorestore --archive
`;

export const VERIFY_HELP = `usage: dbvault-agent verify --in FILE [--json] [--identity FILE] [--config PATH]

Decrypts and checks a whole .enc.dbvault backup without restoring it (every chunk
authenticated, every namespace's checksum), and lists its namespaces and document counts.
Exit code 3 when it is damaged, cut short or made with another key.

options:
  --in FILE            the backup (- reads stdin)
  --identity FILE      the identity file of a write-only agent (key mode write-only wrote it)
  --json               print exactly {"namespaces":{"db.collection":count,...}} on stdout
${CONFIG_OPTIONS}

example:
  dbvault-agent verify --in shop.enc.dbvault
`;

export const KEY_HELP = `usage: dbvault-agent key generate [--force] [--config PATH]
       dbvault-agent key export [--all] [--config PATH]
       dbvault-agent key import [--key-file PATH] [--force] [--add] [--config PATH]
       dbvault-agent key rotate [--rewrap] [--config PATH]
       dbvault-agent key rewrap [--config PATH]
       dbvault-agent key mode write-only [--identity-out FILE] [--keyring-out FILE] [--config PATH]

The master key encrypts every backup; DBVault never sees it and cannot recover it. The keyring
is the master key and the older keys a rotation replaced: each backup names its key by key id,
and the keyring opens it whatever key made it.

key generate   creates a new master key in the config file (setup does this for you). A new key
               cannot open backups made with another one.
key export     prints the master key (dbvk1_…), or with --all the whole keyring: keep a copy
               away from this server.
key import     puts a saved master key into the config file (creating it when there is none):
               a new machine after a disaster. The key comes from --key-file PATH (- reads
               stdin), else a hidden prompt on a terminal, else stdin; never an argument. A
               keyring (key export --all), or a key with --add, joins the keyring instead.
key rotate     makes a new master key: new backups use it at once, the old key stays in the
               keyring, and the server is told the new key id (a running dbvault-agent run
               needs no restart). With --rewrap, every stored backup's data key is then
               rewrapped to the new key on the server (only each file's header changes; its
               data is not sent again), so a keyring exported before no longer opens them:
               export it again (key export --all). Backups in the older file format (version 1)
               keep their key.
key rewrap     rewraps the stored backups not yet under the master key (a stopped --rewrap).

options:
  --all                (export) the whole keyring, one key a line, the master key first
  --key-file PATH      (import) a file holding the key or keyring as key export printed it
  --force              (generate, import) replace a different key already in the config file
  --add                (import) add the key to the keyring; the master key stays
  --rewrap             (rotate) rewrap every stored backup to the new key
  --identity-out FILE  (mode) write the private key there (mode 0600) instead of printing it once
  --keyring-out FILE   (mode) save the keyring there before the master key leaves the config
  --config PATH        the config file (default: see dbvault-agent help)

example (a new machine, then restore without a server; see dbvault-agent help restore):
  dbvault-agent key import --key-file /media/usb/dbvault-master-key.txt
`;

export const SERVICE_HELP = `usage: dbvault-agent service install|uninstall|status [--user] [--unit-dir DIR] [--config PATH]

Runs dbvault-agent run as a service that starts at boot and restarts after a failure: systemd
on Linux (a system unit as root, else a user unit), launchd on macOS, the Task Scheduler on
Windows. Without a service manager, install installs nothing, exits 1 and says how to run
the agent under another supervisor. uninstall removes the service (the config file and its
master key stay); status prints its state (exit 0 when running).

options:
  --user               a service of your own even as root (systemd user unit, LaunchAgent)
  --unit-dir DIR       write the service definition into DIR instead (tests, chroots)
  --config PATH        the config file the service runs with (default: see dbvault-agent help)

example:
  sudo dbvault-agent service install && dbvault-agent service status
`;

export const STATUS_HELP = `usage: dbvault-agent status [--json] [--config PATH]

Asks the DBVault server what it knows of this agent, on the agent's own credentials (the config
file setup wrote): whether dbvault-agent run is connected, and for each database the agent backs
up its last backup, its next scheduled one and, with point-in-time recovery on, how far the
shipped oplog is behind; then the work queued for the agent (backups, restores, verifications,
drills), running or waiting its turn. Times are in UTC.

options:
  --json               the server's answer as JSON
  --config PATH        the config file (default: see dbvault-agent help)

example:
  dbvault-agent status
`;

export const LIST_HELP = `usage: dbvault-agent list [--db NAME] [--limit N] [--json] [--config PATH]

Lists the backups of the databases this agent backs up, newest first, one a line: its id, the
database, its status, when it was made (UTC), scheduled or manual, its size and whether it was
read back and verified. Only this agent's databases: another agent's are not shown.

options:
  --db NAME            only the backups of this database
  --limit N            at most N backups (default ${OPERATOR_LIST_DEFAULT}, at most ${OPERATOR_LIST_MAX})
  --json               the backups as a JSON array (id, databaseName, type, status, createdAt,
                       completedAt, size, verifiedAt, error)
  --config PATH        the config file (default: see dbvault-agent help)

example:
  dbvault-agent list --db shop --limit 5
`;

export const BACKUP_HELP = `usage: dbvault-agent backup now [--db NAME] [--json] [--config PATH]

Asks the DBVault server for a backup of one of this agent's databases now, as the web app's
Trigger Backup does: the plan's manual-backup limit applies (the server answers when the next
one is possible), a database beyond the plan's database limit is refused, and one backup of a
database runs at a time. dbvault-agent run then takes it and backs it up; dbvault-agent status
and list follow it. Prints the new backup's id on stdout.

options:
  --db NAME            the database (needed when the config holds more than one)
  --json               the new backup as JSON instead of its id
  --config PATH        the config file (default: see dbvault-agent help)

example:
  dbvault-agent backup now --db shop
`;

export const VERSION_HELP = `usage: dbvault-agent version

Prints the agent's version, platform and Bun runtime (also: dbvault-agent --version).

example:
  dbvault-agent version
`;

const TOPICS: Record<string, string> = {
  setup: SETUP_HELP,
  run: RUN_HELP,
  status: STATUS_HELP,
  list: LIST_HELP,
  backup: BACKUP_HELP,
  db: DB_HELP,
  copies: COPIES_HELP,
  dump: DUMP_HELP,
  restore: RESTORE_HELP,
  encrypt: ENCRYPT_HELP,
  decrypt: DECRYPT_HELP,
  verify: VERIFY_HELP,
  key: KEY_HELP,
  service: SERVICE_HELP,
  version: VERSION_HELP,
};

/** The commands with help of their own, for messages. */
export const HELP_TOPICS = Object.keys(TOPICS);

/** The help of one command, when it has its own; undefined otherwise. */
export function findCommandHelp(command: string | undefined): string | undefined {
  return command !== undefined && Object.hasOwn(TOPICS, command) ? TOPICS[command] : undefined;
}
