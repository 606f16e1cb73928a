import { sql } from "drizzle-orm";
import type { Tx } from "@db/client";

/**
 * Holds a lock named `key` until `tx` ends, so a check and the write it guards ("no restore of
 * this database is running", then the insert) are one step for every request and instance: two
 * requests at the same instant otherwise both passed the check. A PostgreSQL advisory lock
 * (PGlite runs one transaction at a time anyway).
 */
export async function lockUntilCommit(tx: Tx, key: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`);
}
