// The agent API of key rotation (issue 27 §5): which stored backups an agent may rewrap, their
// headers, and the atomic swap of a header for a rewrapped one (backups/records.ts, stored-files/header-swap.ts).
import { and, asc, eq, inArray, or } from "drizzle-orm";
import { type AgentRow, backups, databases } from "@db/schema";
import type { AppContext } from "../../context";
import { AppError, badRequest, notFound } from "../../lib/errors";
import { readStoredHeader } from "../stored-files/header-swap";
import { replaceBackupHeader } from "../backups/records";
import { MAX_HEADER_LENGTH } from "../stored-files/header-layout";
import { recordAgentKeyIds } from "../agents/service";
import { agentRunsDatabase, findBackupForAgent } from "./agent-backups";
import { sendWaitingWork } from "./waiting-work";

/**
 * PUT /api/agent/key-ids: the agent's keyring changed on its machine (`key rotate`, `key import`).
 * Recorded at once, as its next hello would, and what waited for an agent holding one of those
 * keys is sent now: without this the server kept the old ids until `dbvault-agent run`
 * reconnected, and refused restores of backups made (or rewrapped) with the new key.
 */
export async function recordRotatedKeyIds(ctx: AppContext, agent: AgentRow, keyIds: string[]) {
  await recordAgentKeyIds(ctx, agent.id, keyIds);
  await sendWaitingWork(ctx, agent.id);
  ctx.log.info("an agent's keyring changed", { agentId: agent.id, keyIds });
  return { keyIds };
}

/** Completed backups the agent made, or of a database it runs now: the ones a rotation on its machine rewraps. */
export async function listRewrappableBackups(ctx: AppContext, agent: AgentRow) {
  const running = ctx.db
    .select({ name: databases.name })
    .from(databases)
    .where(and(eq(databases.organizationId, agent.organizationId), eq(databases.agentId, agent.id)));
  const rows = await ctx.db
    .select({ id: backups.id, databaseName: backups.databaseName, createdAt: backups.createdAt, keyId: backups.keyId })
    .from(backups)
    .where(
      and(
        eq(backups.organizationId, agent.organizationId),
        eq(backups.status, "completed"),
        or(eq(backups.agentId, agent.id), inArray(backups.databaseName, running)),
      ),
    )
    .orderBy(asc(backups.createdAt), asc(backups.id));
  return { backups: rows.map((row) => ({ ...row, createdAt: row.createdAt.toISOString() })) };
}

/**
 * A backup whose header the agent may replace: as for downloads, except one it was only asked to
 * restore (a restore agent reads a backup; it does not re-key the account's files).
 */
export async function findRewrappableBackup(ctx: AppContext, agent: AgentRow, backupId: string) {
  const backup = await findBackupForAgent(ctx, agent, backupId);
  if (backup.agentId === agent.id || (await agentRunsDatabase(ctx, agent, backup.databaseName))) return backup;
  throw notFound("Backup");
}

/** GET …/header: the stored header's bytes. */
export async function headerResponse(ctx: AppContext, agent: AgentRow, backupId: string): Promise<Response> {
  const header = await readStoredHeader(ctx, await findBackupForAgent(ctx, agent, backupId));
  return new Response(new Uint8Array(header), { headers: { "content-type": "application/octet-stream", "cache-control": "no-store" } });
}

/** PUT …/header: reads the new header (at most 65,535 bytes) and swaps it in. */
export async function replaceHeaderFromRequest(ctx: AppContext, agent: AgentRow, backupId: string, request: Request) {
  const backup = await findRewrappableBackup(ctx, agent, backupId);
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > MAX_HEADER_LENGTH) throw tooLarge();
  const body = await readAtMost(request.body, MAX_HEADER_LENGTH);
  if (body.length < 12) throw badRequest("The request body must be the new header of the backup file (application/octet-stream).");
  return replaceBackupHeader(ctx, backup, body);
}

const tooLarge = () => new AppError(413, "PAYLOAD_TOO_LARGE", `A backup file header is at most ${MAX_HEADER_LENGTH} bytes.`);

async function readAtMost(stream: ReadableStream<Uint8Array> | null, limit: number): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  let total = 0;
  if (stream) {
    for await (const chunk of stream) {
      total += chunk.length;
      if (total > limit) throw tooLarge();
      parts.push(chunk);
    }
  }
  return Buffer.concat(parts);
}
