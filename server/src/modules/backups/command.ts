import type { backups } from "@db/schema";
import type { ServerMessage } from "@protocol/agent-protocol";
import { backupFileName } from "./views";

/**
 * The command asking an agent to run a backup. One builder for both senders: startBackup when the
 * backup is asked for, and agent-link/unstarted-backups.ts when its agent says hello again before
 * starting it; the agent recognises a repeat by the backup id, so the two must never differ.
 */
export function backupCommand(backup: Pick<typeof backups.$inferSelect, "id" | "databaseName" | "createdAt">): Extract<ServerMessage, { type: "backup" }> {
  return { type: "backup", backupId: backup.id, databaseName: backup.databaseName, fileName: backupFileName(backup) };
}
