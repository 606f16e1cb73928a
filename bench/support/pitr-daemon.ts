// Point-in-time recovery through the real daemon, for the PITR benches: switched on through the
// API as the owner does in Settings, and the covered timeline read back as the web app reads it.
import type { MongoClient } from "mongodb";
import type { OplogTime } from "../../protocol/oplog-position.ts";
import type { ConnectedAgent } from "./agent-daemon.ts";
import { poll } from "./agent-daemon.ts";

type Position = { ts: string; at: string };
export type Timeline = {
  ranges: { from: Position; to: Position; slices: number; entries: number; bytes: number }[];
  gaps: { from: Position; to: Position; reason: string }[];
  bases: { id: string; consistentAt: Position }[];
  slices: number;
  /** What the agent reported with its last heartbeat (seconds), or null. */
  lagSeconds: number | null;
  bytes: number;
};

export const parsePosition = (ts: string): OplogTime => {
  const [t, i] = ts.split(",").map(Number);
  return { t: t!, i: i! };
};

/** Switches point-in-time recovery on for the database named `name`; answers its id. */
export async function enablePitr(agent: ConnectedAgent, name: string): Promise<string> {
  const databases = await agent.api<{ id: string; name: string }[]>("GET", "/api/settings/databases");
  const database = databases.find((entry) => entry.name === name);
  if (!database) throw new Error(`the server has no database ${name}`);
  await agent.api("PUT", `/api/pitr/databases/${database.id}`, { enabled: true });
  return database.id;
}

export const readTimeline = (agent: ConnectedAgent, databaseId: string) => agent.api<Timeline>("GET", `/api/pitr/databases/${databaseId}/timeline`);

/** The newest position the server holds slices up to, or undefined before the first slice. */
export function coveredThrough(timeline: Timeline): OplogTime | undefined {
  const newest = timeline.ranges.at(-1);
  return newest ? parsePosition(newest.to.ts) : undefined;
}

/** Waits (calling `tick` between looks, e.g. a write that moves the oplog on) until the timeline answers `check`. */
export async function waitForTimeline(
  agent: ConnectedAgent,
  databaseId: string,
  what: string,
  timeoutMs: number,
  check: (timeline: Timeline) => boolean,
  tick?: () => Promise<unknown>,
): Promise<Timeline> {
  return poll(what, timeoutMs, 250, async () => {
    if (!agent.daemon.running()) throw new Error(`dbvault-agent run exited:\n${agent.daemon.log()}`);
    await tick?.();
    const timeline = await readTimeline(agent, databaseId);
    return check(timeline) ? timeline : undefined;
  });
}

/**
 * Switches point-in-time recovery on for `name` and waits for its first stored slice, writing to
 * it meanwhile so the oplog moves; answers the database's id. The shipping benches start here.
 */
export async function shipFirstSlice(agent: ConnectedAgent, client: MongoClient, name: string): Promise<string> {
  const databaseId = await enablePitr(agent, name);
  const tick = () => client.db(name).collection("ticks").insertOne({ at: new Date() });
  await waitForTimeline(agent, databaseId, "the first slice", 120_000, (timeline) => timeline.ranges.length > 0, tick);
  return databaseId;
}
