// How long a backup or restore may go unheard of before it is given up: the stalled-operation
// sweep (scheduler/service.ts) fails it then, and nothing revives one past them (the job ledger's
// delivery lease, service.ts; the queue a heartbeat reports, agents/queued-jobs.ts).

/** A pending job its agent never started fails after this; a running one that went silent, after STALLED_TIMEOUT_MS. */
export const PENDING_TIMEOUT_MS = 2 * 60_000;
export const STALLED_TIMEOUT_MS = 10 * 60_000;

/** The longest a backup or restore may wait in an agent's queue (behind a very long backup, say). */
export const QUEUED_LIMIT_MS = 12 * 3_600_000;
