// The dbLimit rule of spec 5 as the Databases tab applies it: only dbLimit databases are active.

const UNLIMITED_DATABASES_ABOVE = 500;

/** A database's switch works if it is active (to disable it) or the plan has room for one more. */
export function canToggleDatabase(database: { isActive: boolean }, activeCount: number, dbLimit: number): boolean {
  return database.isActive || activeCount < dbLimit;
}

/** 'Your Free plan allows 1 active database; 1 active now.' ('unlimited' above 500). */
export function describeDatabaseAllowance(plan: { name: string; dbLimit: number }, activeCount: number): string {
  const limit = plan.dbLimit > UNLIMITED_DATABASES_ABOVE ? "unlimited" : String(plan.dbLimit);
  return `Your ${plan.name} plan allows ${limit} active database${plan.dbLimit === 1 ? "" : "s"}; ${activeCount} active now.`;
}
