// The dashboard's calls, all through the typed Eden client; answer types come from the server.
import type { BrowserEvent } from "@server/lib/browser-events";
import { type Answer, api } from "../../../lib/api-client";
import type { SystemStatus } from "../../../lib/api/get-system-status";
import type { UserDatabase } from "../../../lib/api/get-databases";

type BackupNode = ReturnType<typeof api.backups>;
const backupNode = (id: string) => api.backups({ id }) as BackupNode;

export const listBackupsRequest = (query: { databaseName?: string; limit?: number } = {}) => api.backups.get({ query });
/** A page of the backups that match the list's filters (utils/backup-filters.ts). */
export const findBackupsRequest = (query: {
  search?: string;
  status?: "pending" | "in-progress" | "completed" | "failed";
  from?: string;
  to?: string;
  verified?: "true" | "false";
  pitrBase?: "true" | "false";
  page?: number;
}) => api.backups.get({ query });
export const backupSummaryRequest = () => api.backups.summary.get();
export const triggerBackupRequest = (databaseName: string) => api.backups.post({ databaseName });
export const getBackupRequest = (id: string) => backupNode(id).get();
export const deleteBackupRequest = (id: string) => backupNode(id).delete();
/** One byte range of the encrypted file (inclusive end), so a download can report its progress. */
export const downloadBackupRangeRequest = (id: string, start: number, end: number) =>
  backupNode(id).download.get({ headers: { range: `bytes=${start}-${end}` } });
/** `databaseName` is the typed confirmation: the target's name. */
export const restoreBackupRequest = (
  id: string,
  databaseName: string,
  where: { targetDatabase?: string; collections?: string[]; sealedIdentity?: string; connection?: { agentId: string; name: string } } = {},
) => backupNode(id).restore.post({ databaseName, ...where });
/** The online agents that can open a backup, with their connection names (names only), for "another connection". */
export const restoreConnectionsRequest = (id: string) => backupNode(id)["restore-connections"].get();
export const restoreToMomentRequest = (body: { databaseId: string; at: string; confirmation: string; targetDatabase?: string; collections?: string[] }) =>
  api.restores["point-in-time"].post(body);
export const listRestoresRequest = () => api.backups.restores.all.get();
/** Asks the database's agent to read the stored backup back again (202; the result arrives on the row). */
export const verifyBackupRequest = (id: string) => backupNode(id).verify.post();
export const resolveAnomalyRequest = (id: string) => backupNode(id).anomaly.resolve.post();
/** Keeps a completed backup forever (retention never deletes it), or lets retention decide again. */
export const setBackupKeptRequest = (id: string, kept: boolean) => backupNode(id).keep.put({ kept });
/** Sets a backup's label; null removes it. */
export const setBackupLabelRequest = (id: string, label: string | null) => backupNode(id).label.put({ label });
export const serviceHealthRequest = () => api.agents["server-status"].get();
/** Opens the realtime channel (/api/ws); the caller authenticates it with its first message. */
export const openRealtimeChannel = () => api.ws.subscribe();

export type Backup = Answer<typeof listBackupsRequest>[number];
export type BackupSummary = Answer<typeof backupSummaryRequest>;
export type RestoreRecord = Answer<typeof listRestoresRequest>[number];
export type RestoreConnectionAgent = Answer<typeof restoreConnectionsRequest>["agents"][number];
export type { SystemStatus };
export type Agent = SystemStatus["agents"][number];
export type DatabaseEntry = UserDatabase;
export type { UserPlan } from "../../../lib/api/get-user-plan";
export type { BrowserEvent };
export type OperationProgress = NonNullable<Backup["progress"]>;
/** The covered oplog time, gaps and reported lag of a database with point-in-time recovery on. */
export const pitrTimelineRequest = (databaseId: string) => api.pitr.databases({ databaseId }).timeline.get();
export type PitrTimeline = Answer<typeof pitrTimelineRequest>;
