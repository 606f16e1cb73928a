// The dashboard's database selector (spec 2): 'production-db' until an active database is found;
// a database that is not active (beyond the plan's limit) cannot be selected.

export const DEFAULT_DATABASE_NAME = "production-db";

/** The selection to keep or move to once the user's databases are known. */
export function chooseDatabase(current: string, databases: Array<{ name: string; isActive: boolean }>): string {
  if (databases.some((db) => db.name === current && db.isActive)) return current;
  return databases.find((db) => db.isActive)?.name ?? current;
}
