// Verified backups. The server cannot read a backup (zero knowledge), so the agent proves it:
// after each upload, and when asked again, it downloads the stored file through the server,
// decrypts and parses all of it and counts the documents of each namespace. The server records
// what it reports, checks the counts against what was dumped once more, and raises the alerts.
import { and, eq } from "drizzle-orm";
import { agents, backups } from "@db/schema";
import type { Verification } from "@protocol/agent-protocol";
import { verificationOf } from "@protocol/verification";
import type { AppContext } from "../../context";
import { conflict } from "../../lib/errors";
import type { AgentRow } from "@db/schema";
import { sendToAgent } from "../../lib/agent-commands";
import { recordAudit } from "../audit/service";
import { notifyBackupVerified, notifyVerificationFailed } from "../notifications/service";
import { backupFacts } from "../webhooks/events";
import { publishToOrganization } from "../../lib/browser-events";
import { recordVerificationWaiting, recordVerified } from "../backups/records";
import { alertSubjectOf } from "../backups/service";
import { agentOffline, canRead, chooseReader, usualAgentOf } from "../agents/readers";

type BackupRow = typeof backups.$inferSelect;

/**
 * The verification as it is recorded: the agent's word, except that an "ok" whose counts differ
 * from the ones dumped (known for backups made since agents report them) is a failure.
 */
export function settleVerification(reported: Verification, dumped: Record<string, number> | null): Verification {
  return reported.status === "failed" ? reported : verificationOf(reported.namespaces, dumped);
}

const describeCounts = (namespaces: Record<string, number>) => {
  const documents = Object.values(namespaces).reduce((sum, count) => sum + count, 0);
  const collections = Object.keys(namespaces).length;
  return `${documents.toLocaleString("en-US")} document${documents === 1 ? "" : "s"} in ${collections} collection${collections === 1 ? "" : "s"} read back and decrypted`;
};

/**
 * Whether an agent may report on a backup's verification: it is one a verification goes to, as
 * requestVerification and verifyElsewhereIfSealed choose it (the agent that made the backup, the
 * one running its database now, or, when that one cannot open it, an agent whose keyring names
 * its key). Any other agent of the organization was never asked: its word would rewrite the
 * result and mail the owner its text.
 */
export async function mayReportVerification(ctx: AppContext, agentId: string, backup: BackupRow): Promise<boolean> {
  if (backup.agentId === agentId) return true;
  const usual = await usualAgentOf(ctx, backup);
  if (usual?.id === agentId) return true;
  if (!backup.keyId || (usual && canRead(usual, backup.keyId))) return false;
  // Its keyring as its last hello named it.
  const [agent] = await ctx.db.select({ keyIds: agents.keyIds }).from(agents).where(eq(agents.id, agentId));
  return agent?.keyIds?.includes(backup.keyId) ?? false;
}

/**
 * Records an agent's report on a completed backup it was given to verify: verifiedAt and
 * verification, an audit entry, a live event and the alert. Reports on backups that are gone,
 * or that the agent was not given (mayReportVerification), are ignored.
 */
export async function recordVerification(ctx: AppContext, agent: Pick<AgentRow, "id" | "organizationId">, backupId: string, reported: Verification) {
  const [backup] = await ctx.db
    .select()
    .from(backups)
    .where(and(eq(backups.id, backupId), eq(backups.organizationId, agent.organizationId), eq(backups.status, "completed")));
  if (!backup) return;
  if (!(await mayReportVerification(ctx, agent.id, backup))) {
    ctx.log.warn("ignored a verification report from an agent not given the backup", { agentId: agent.id, backupId });
    return;
  }
  const verification = settleVerification(reported, backup.collections);
  const ok = verification.status === "ok";
  await ctx.db.transaction(async (tx) => {
    await recordVerified(tx, backup.id, verification, ctx.now());
    await recordAudit(tx, backup.organizationId, ok ? "BACKUP_VERIFIED" : "BACKUP_VERIFICATION_FAILED", {
      backupId: backup.id,
      databaseName: backup.databaseName,
      agentId: agent.id,
      ...(ok ? {} : { reason: verification.error }),
    });
  });
  await publishToOrganization(ctx, backup.organizationId, { type: "backupVerified", backupId: backup.id, status: verification.status });
  const subject = { ...alertSubjectOf(backup), agentId: agent.id };
  const facts = { ...backupFacts(backup), verification };
  if (ok) await notifyBackupVerified(ctx, subject, describeCounts(verification.namespaces), facts);
  else {
    ctx.log.warn("backup verification failed", { backupId: backup.id, reason: verification.error });
    await notifyVerificationFailed(ctx, subject, verification.error ?? "unknown", facts);
  }
}

/**
 * The agent serving a backup's database now (it may have moved since the backup), else the one
 * that made the backup; 409 AGENT_OFFLINE when that agent is not connected.
 */
export async function findAgentOf(ctx: AppContext, backup: Pick<BackupRow, "organizationId" | "databaseName" | "agentId">) {
  const agent = await usualAgentOf(ctx, { ...backup, keyId: null });
  if (!agent || agent.status === "offline") throw agentOffline(backup.databaseName);
  return agent;
}

/** The verify command of a backup, for whichever agent reads it. */
export const verifyCommand = (backup: BackupRow) =>
  ({
    type: "verify",
    backupId: backup.id,
    databaseName: backup.databaseName,
    size: backup.size,
    ...(backup.collections ? { expected: backup.collections } : {}),
    ...(backup.sha256 ? { sha256: backup.sha256 } : {}),
  }) as const;

/**
 * Asks an agent that can read a completed backup to read it back again (agents/readers.ts:
 * a write-only agent's backups go to a restore agent); the result arrives as verifiedAt/verification.
 * When no such agent is online the backup records why it waits, and the first to connect gets it.
 */
export async function requestVerification(ctx: AppContext, backup: BackupRow) {
  if (backup.status !== "completed") throw conflict(`This backup is ${backup.status}; only completed backups can be verified.`);
  const reader = await chooseReader(ctx, backup);
  if ("agent" in reader && (!reader.agent || reader.agent.status === "offline")) throw agentOffline(backup.databaseName);
  if ("waiting" in reader) {
    await recordVerificationWaiting(ctx, backup.id, reader.waiting);
    await publishToOrganization(ctx, backup.organizationId, { type: "backupVerified", backupId: backup.id, status: "waiting" });
    return { message: `Verification requested. ${reader.waiting}`, waitingFor: reader.waiting };
  }
  await recordVerificationWaiting(ctx, backup.id, null);
  await sendToAgent(ctx, reader.agent!.id, verifyCommand(backup));
  return { message: "Verification requested: the agent reads the backup back from storage and reports within minutes." };
}

/**
 * After an upload: a backup its own agent cannot read (a write-only agent's, which skips reading
 * it back) is verified by a restore agent, now or when one connects. Others verify themselves.
 */
export async function verifyElsewhereIfSealed(ctx: AppContext, backup: BackupRow) {
  const maker = backup.agentId ? await ctx.db.select().from(agents).where(eq(agents.id, backup.agentId)) : [];
  if (!backup.keyId || !maker[0] || canRead(maker[0], backup.keyId)) return;
  await requestVerification(ctx, backup).catch((error) => ctx.log.warn("could not ask for a sealed backup's verification", { backupId: backup.id, error }));
}
