// A throw-away PostgreSQL server of a test's own, which the test may stop and start again (an
// outage, a restart): the shared one of scripts/with-test-postgres.sh must stay up for the others.
// Password authentication, so tests can check the password never shows. About 1.5 s to create.
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findFreePort } from "./server-process";

export type PostgresServer = {
  /** postgres://app:<password>@127.0.0.1:<port>/postgres */
  url: string;
  password: string;
  port: number;
  stop(): void;
  start(): void;
  destroy(): void;
};

/** The newest installed server's bin directory, or null (then tests needing one skip and say why). */
export function findPostgresBin(): string | null {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).filter((name) => existsSync(join(root, name, "bin", "initdb")));
  versions.sort((a, b) => Number(a) - Number(b));
  return versions.length > 0 ? join(root, versions.at(-1)!, "bin") : null;
}

/** Creates and starts a server on a free loopback port. Throws when no PostgreSQL is installed. */
export function startPostgresServer(): PostgresServer {
  const bin = findPostgresBin();
  if (!bin) throw new Error("PostgreSQL server binaries not found (apt-get install postgresql)");
  const dir = mkdtempSync(join(tmpdir(), "dbvault-own-pg-"));
  const password = `pg-Secret-${crypto.randomUUID()}`;
  const port = findFreePort();
  // initdb refuses to run as root: then run everything as the postgres user, as with-test-postgres.sh does.
  const asRoot = process.getuid?.() === 0;
  const run = (command: string[]) => {
    const result = Bun.spawnSync(asRoot ? ["runuser", "-u", "postgres", "--", ...command] : command, { stdout: "pipe", stderr: "pipe" });
    if (result.exitCode !== 0) throw new Error(`${command[0]} failed: ${result.stderr.toString()}${result.stdout.toString()}`);
  };
  const passwordFile = join(dir, "password");
  writeFileSync(passwordFile, password);
  if (asRoot) {
    const postgresUid = Number(Bun.spawnSync(["id", "-u", "postgres"]).stdout.toString().trim());
    for (const path of [dir, passwordFile]) chownSync(path, postgresUid, -1);
  }
  const data = join(dir, "data");
  run([join(bin, "initdb"), "-D", data, "-U", "app", "--auth=scram-sha-256", `--pwfile=${passwordFile}`, "-E", "UTF8", "--locale=C.UTF-8"]);
  const start = () =>
    run([
      join(bin, "pg_ctl"),
      "-D",
      data,
      "-w",
      "-l",
      join(dir, "server.log"),
      "start",
      "-o",
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
    ]);
  start();
  return {
    url: `postgres://app:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    password,
    port,
    // "fast": open connections are cut at once, as when the database server goes down.
    stop: () => run([join(bin, "pg_ctl"), "-D", data, "-w", "-m", "fast", "stop"]),
    start,
    destroy() {
      try {
        run([join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "stop"]);
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
