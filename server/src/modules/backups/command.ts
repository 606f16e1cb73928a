import type { backups } from "@db/schema";
import type { ServerMessage } from "@protocol/agent-protocol";
import { backupFileName } from "../stored-files/keys";

/**
 * The command asking an agent to run a backup, as startBackup puts it in the job ledger
 * (agent-jobs/service.ts), which sends it again on each hello until the agent takes it; the agent
 * recognises a repeat by the backup id.
 */
export function backupCommand(backup: Pick<typeof backups.$inferSelect, "id" | "databaseName" | "createdAt">): Extract<ServerMessage, { type: "backup" }> {
  return { type: "backup", backupId: backup.id, databaseName: backup.databaseName, fileName: backupFileName(backup) };
}
