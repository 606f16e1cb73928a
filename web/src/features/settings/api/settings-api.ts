import type { FrequencyWord } from "@protocol/schedule";
import { api } from "../../../lib/api-client";

type ServerSettingsBody = NonNullable<Parameters<typeof api.settings.put>[0]>;
// The server's frequency schema (a union built from a list) reaches Eden typed as undefined, so
// the frequency is typed here from the same shared list of words; everything else is derived.
export type SettingsChanges = Omit<ServerSettingsBody, "frequency"> & { frequency?: FrequencyWord };
/** The commands POST /api/agents/manage/{agentId} takes (spec 7). */
export type AgentAction = "restart" | "update" | "reset";

export const getSettingsRequest = () => api.settings.get();
export const saveSettingsRequest = (changes: SettingsChanges) => api.settings.put(changes as ServerSettingsBody);
export const setDatabaseActiveRequest = (id: string, isActive: boolean) => api.settings.databases({ id }).put({ isActive });
/** The password (and code) go with it: a session token alone cannot replace the key. */
export const regenerateApiKeyRequest = (credentials: { password?: string; code?: string }) => api.settings["regenerate-api-key"].post(credentials);
export const sendTestNotificationRequest = () => api.settings["test-notification"].post();
export const manageAgentRequest = (agentId: string, action: AgentAction) => api.agents.manage({ agentId }).post({ action });
export const removeAgentRequest = (agentId: string) => api.agents({ agentId }).delete();
export const renameAgentRequest = (agentId: string, name: string) => api.agents({ agentId }).patch({ name });
/** Approves the code `dbvault-agent setup --force` printed; the password (and code) confirm it is the user. */
export const approveSetupCodeRequest = (agentId: string, setupCode: string, credentials: { password?: string; code?: string }) =>
  api.agents({ agentId })["setup-approval"].post({ setupCode, ...credentials });
/** Which of the agents holding a database runs it. */
export const setPointInTimeRecoveryRequest = (id: string, enabled: boolean) => api.pitr.databases({ databaseId: id }).put({ enabled });
export type DatabaseScheduleInput = { frequency: string | null; timeOfDay: string | null; windowStart: string | null; windowEnd: string | null };
/** A database's own schedule (null fields follow the account's settings). */
export const setDatabaseScheduleRequest = (id: string, schedule: DatabaseScheduleInput) => api.settings.databases({ id }).schedule.put(schedule);
export const chooseDatabaseAgentRequest = (id: string, agentId: string) => api.settings.databases({ id }).agent.put({ agentId });
export type RetentionChoice = { mode: "age" | "gfs"; retention: number; daily: number; weekly: number; monthly: number };
/** What retention would keep of the existing backups under a policy not saved yet. */
export const retentionPreviewRequest = (choice: RetentionChoice) => api.settings["retention-preview"].get({ query: choice });
/** A restore drill of a database's latest backup, now. */
export const startDrillRequest = (databaseName: string) => api.drills.post({ databaseName });

// Answers as the server types them.
export type UserSettings = NonNullable<Awaited<ReturnType<typeof getSettingsRequest>>["data"]>;
export type NotificationChoices = UserSettings["notifications"];
export type { UserDatabase } from "../../../lib/api/get-databases";
export type { UserAgent } from "../../../lib/api/get-system-status";
export type { UserPlan } from "../../../lib/api/get-user-plan";
export type RetentionPreview = NonNullable<Awaited<ReturnType<typeof retentionPreviewRequest>>["data"]>;
