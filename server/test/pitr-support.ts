// Seeding point-in-time recovery over the agents' real paths, for server and browser tests: a
// slice uploaded as the shipper uploads it (random bytes stand for the sealed file; the server
// never opens it), and a completed backup consistent at an oplog position.
import { createHash, randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { databases, organizations, pitrSlices, plans } from "@db/schema";
import { SLICE_UPLOAD_PATH } from "@protocol/pitr";
import type { AppContext } from "../src/context";
import { startBackup } from "../src/modules/backups/service";
import type { TestServer } from "./harness";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

export type SeededSlice = { chain: string; sequence: number; start: string; end: string; reason?: string; rolloverFrom?: string };

/**
 * A new user on the Pro plan whose connected scripted agent serves `database`, with point-in-time
 * recovery switched on for it (so its slices are accepted); with the plan, for its window.
 */
export async function userShippingPitr(server: TestServer, baseUrl: string, database: string) {
  const user = await server.registerUser();
  const agent = await registerScriptedAgent(baseUrl, user.apiKey, [database]);
  const [pro] = await server.ctx.db.select().from(plans).where(eq(plans.name, "Pro"));
  await server.ctx.db.update(organizations).set({ planId: pro!.id }).where(eq(organizations.id, user.id));
  await agent.connect();
  const [row] = await server.ctx.db.select().from(databases).where(eq(databases.organizationId, user.id));
  const switched = await server.call("PUT", `/api/pitr/databases/${row!.id}`, { token: user.token, body: { enabled: true } });
  if (switched.status !== 200) throw new Error(`switching point-in-time recovery on failed: ${switched.status} ${JSON.stringify(switched.body)}`);
  return { user, agent, databaseId: row!.id, plan: pro! };
}

/** Uploads one slice of `database` holding one entry at its end; returns its id, storage key and bytes. */
export async function uploadSlice(ctx: AppContext, baseUrl: string, agent: ScriptedAgent, database: string, slice: SeededSlice) {
  const bytes = randomBytes(300 + slice.sequence);
  const query = {
    database,
    chain: slice.chain,
    sequence: String(slice.sequence),
    start: slice.start,
    end: slice.end,
    entries: "1",
    first: slice.end,
    last: slice.end,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    reason: slice.reason ?? (slice.sequence === 0 ? "started" : "continues"),
    ...(slice.rolloverFrom ? { rolloverFrom: slice.rolloverFrom } : {}),
  };
  const res = await fetch(`${baseUrl}${SLICE_UPLOAD_PATH}?${new URLSearchParams(query)}`, {
    method: "PUT",
    headers: { ...agent.headers(), "content-type": "application/octet-stream" },
    body: bytes,
  });
  if (res.status !== 200) throw new Error(`slice upload failed: ${res.status} ${await res.text()}`);
  const [row] = await ctx.db.select({ id: pitrSlices.id, storageKey: pitrSlices.storageKey }).from(pitrSlices).where(eq(pitrSlices.sha256, query.sha256));
  return { id: row!.id, storageKey: row!.storageKey, bytes };
}

/** A completed backup of the database, consistent at oplog position {t, i}, made by its scripted agent. */
export async function consistentBackup(ctx: AppContext, agent: ScriptedAgent, databaseId: string, at: { t: number; i: number }) {
  const [database] = await ctx.db.select().from(databases).where(eq(databases.id, databaseId));
  await startBackup(ctx, database!, "auto");
  const { backupId } = await agent.waitFor("backup");
  const bytes = randomBytes(500);
  const part = await agent.uploadPart(backupId, 0, bytes);
  if (part.status !== 200) throw new Error(`backup part refused: ${part.status}`);
  const consistency = { kind: "point-in-time", at: { time: new Date(at.t * 1000).toISOString(), ts: at } };
  const done = await agent.complete(backupId, bytes, 1, { consistency });
  if (done.status !== 200) throw new Error(`backup completion refused: ${done.status} ${await done.text()}`);
  return backupId;
}
