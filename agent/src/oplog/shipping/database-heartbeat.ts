// The shipper's own heartbeat to its database: a `hello` every few seconds, read for the member's
// newest majority-committed position (`lastWrite.majorityOpTime`). The tail alone cannot tell an
// idle database from a cut connection (an awaitData getMore on a dead link just waits), so each
// answer confirms the position to the lag meter, and a failure or a hello unanswered within the
// timeout marks the database unreachable and says so in the log, once per outage.
import type { Timestamp } from "bson";
import type { MongoClient } from "mongodb";
import type { OplogTime } from "../../../../protocol/oplog-position.ts";
import type { LagMeter } from "./lag-meter.ts";

/** How often the database is asked, unless told otherwise. */
export const DATABASE_HEARTBEAT_MS = 5_000;

export type DatabaseHeartbeatOptions = {
  client: MongoClient;
  lag: LagMeter;
  log: (message: string, fields?: Record<string, unknown>) => void;
  intervalMs?: number;
  /** A hello not answered in this long counts as a failure; the interval unless told otherwise. */
  timeoutMs?: number;
};

/** The member's newest majority-committed position from a hello's answer, when it names one. */
function readMajorityOpTime(answer: Record<string, unknown>): OplogTime | undefined {
  const lastWrite = answer.lastWrite as { majorityOpTime?: { ts?: Timestamp } } | undefined;
  const ts = lastWrite?.majorityOpTime?.ts;
  if (!ts || typeof ts.high !== "number") return undefined;
  return { t: ts.high >>> 0, i: ts.low >>> 0 };
}

/** Asks once; answers the position, or throws when the database did not answer in time. */
async function askOnce(client: MongoClient, timeoutMs: number): Promise<OplogTime | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the database did not answer a hello within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
  });
  try {
    const answer = await Promise.race([client.db("admin").command({ hello: 1 }), timeout]);
    return readMajorityOpTime(answer);
  } finally {
    clearTimeout(timer);
  }
}

/** Starts beating at once; `stop` ends it. */
export function startDatabaseHeartbeat(options: DatabaseHeartbeatOptions): { stop: () => void } {
  const intervalMs = options.intervalMs ?? DATABASE_HEARTBEAT_MS;
  const timeoutMs = options.timeoutMs ?? intervalMs;
  let stopped = false;
  let down = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const beat = async () => {
    try {
      const newest = await askOnce(options.client, timeoutMs);
      if (stopped) return;
      if (newest) options.lag.confirm(newest);
      if (down) options.log("the database answers again: oplog shipping resumes");
      down = false;
    } catch (error) {
      if (stopped) return;
      options.lag.unreachable();
      if (!down)
        options.log("can't reach the database: nothing can be shipped until it answers (the shipping lag grows)", {
          // Only the kind: driver messages can quote the connection string.
          error: (error as { codeName?: string }).codeName ?? (error as Error).name,
        });
      down = true;
    }
    if (!stopped) timer = setTimeout(beat, intervalMs);
  };
  void beat();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
