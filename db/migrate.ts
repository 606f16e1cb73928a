import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Db } from "./client";
import { migrationFiles } from "./migrations";

// Same bookkeeping table and hashing as drizzle-kit's own migrator, so either can be used on a
// database. Ours takes an advisory lock first: several server instances may start at once.
const MIGRATION_LOCK_ID = 7_042_001;

/** Applies every bundled migration not yet applied, in order, in one transaction. Idempotent. */
export async function migrate(db: Db): Promise<{ applied: string[] }> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`);
    await tx.execute(sql`create schema if not exists drizzle`);
    await tx.execute(sql`create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)`);
    const rows = await tx.execute<{ created_at: string | number | null }>(
      sql`select created_at from drizzle.__drizzle_migrations order by created_at desc limit 1`,
    );
    const list = Array.isArray(rows) ? rows : (rows as { rows: { created_at: string | number | null }[] }).rows;
    const lastApplied = list.length > 0 ? Number(list[0]!.created_at) : 0;
    const applied: string[] = [];
    for (const file of migrationFiles) {
      if (file.when <= lastApplied) continue;
      for (const statement of file.sql.split("--> statement-breakpoint")) {
        if (statement.trim()) await tx.execute(sql.raw(statement));
      }
      const hash = createHash("sha256").update(file.sql).digest("hex");
      await tx.execute(sql`insert into drizzle.__drizzle_migrations (hash, created_at) values (${hash}, ${file.when})`);
      applied.push(file.tag);
    }
    return { applied };
  });
}
