import type { backups } from "@db/schema";
import type { ServerMessage } from "@protocol/agent-protocol";
import { backupFileName } from "../stored-files/keys";

/**
 * The command asking an agent to run a backup, as startBackup puts it in the job ledger
 * (agent-jobs/service.ts), which sends it again on each hello until the agent takes it; the agent
 * recognises a repeat by the backup id.
 */
export function backupCommand(
  backup: Pick<typeof backups.$inferSelect, "id" | "databaseName" | "createdAt" | "excludedCollections">,
): Extract<ServerMessage, { type: "backup" }> {
  const command: Extract<ServerMessage, { type: "backup" }> = {
    type: "backup",
    backupId: backup.id,
    databaseName: backup.databaseName,
    fileName: backupFileName(backup),
  };
  // Only when there are some: an agent too old to know the field would back them up anyway.
  if (backup.excludedCollections.length > 0) command.excludeCollections = backup.excludedCollections;
  return command;
}
