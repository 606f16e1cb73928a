// Where a test server keeps a piece of text: every row of every table of its database, every file
// of its data directory (storage, secrets, an embedded database), and what it logged while a
// capture ran. For tests that a secret passed through the server and stayed nowhere.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import type { TestServer } from "./harness";

/** The tables whose rows, and the files of the data directory whose bytes, hold `text`. */
export async function whereServerKeeps(server: TestServer, text: string): Promise<string[]> {
  const found: string[] = [];
  const tables = await server.ctx.db.execute(sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`);
  const names = ((tables as { rows?: { table_name: string }[] }).rows ?? (tables as unknown as { table_name: string }[])).map((row) => row.table_name);
  if (!names.includes("restores")) throw new Error(`the table list looks wrong: ${names.join(", ")}`);
  for (const name of names) {
    if (JSON.stringify(await server.ctx.db.execute(sql.raw(`select * from "${name}"`))).includes(text)) found.push(`table ${name}`);
  }
  for (const file of listFiles(server.ctx.config.dataDir)) if (readFileSync(file).includes(text)) found.push(`file ${file}`);
  return found;
}

/** Records every line the server logs (its levels still write as before) until `stop()`. */
export function captureServerLog(server: TestServer): { lines: string[]; stop(): void } {
  const lines: string[] = [];
  const log = server.ctx.log;
  const original = { ...log };
  for (const level of ["debug", "info", "warn", "error"] as const) {
    log[level] = (message, fields) => {
      lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
      original[level](message, fields);
    };
  }
  return { lines, stop: () => void Object.assign(log, original) };
}

function listFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}
