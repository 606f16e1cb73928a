// The Settings screen's changes as mutations. Each writes what the server answers into the cache
// entry it changed (settings, databases, agents), so every screen reading that entry shows it.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { answerOf } from "../../../lib/api-client";
import { databasesQueryKey } from "../../../lib/api/get-databases";
import { mergeIntoProfile } from "../../../lib/api/get-profile";
import { type SystemStatus, systemStatusQueryKey, type UserAgent } from "../../../lib/api/get-system-status";
import { settingsQueryKey } from "./get-settings";
import {
  type AgentAction,
  approveSetupCodeRequest,
  chooseDatabaseAgentRequest,
  type DatabaseScheduleInput,
  setDatabaseScheduleRequest,
  manageAgentRequest,
  regenerateApiKeyRequest,
  removeAgentRequest,
  renameAgentRequest,
  type SettingsChanges,
  saveSettingsRequest,
  sendTestNotificationRequest,
  setDatabaseActiveRequest,
  setPointInTimeRecoveryRequest,
  type UserSettings,
} from "./settings-api";

/** A new API key (the password, and a code with two-factor sign-in, confirm it is the owner). */
export function useRegenerateApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (credentials: Parameters<typeof regenerateApiKeyRequest>[0]) => answerOf(regenerateApiKeyRequest(credentials)),
    onSuccess: ({ apiKey }) => mergeIntoProfile(queryClient, { apiKey }),
  });
}

/** PUT /api/settings; the answer is the whole settings. */
export function useSaveSettings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (changes: SettingsChanges) => answerOf(saveSettingsRequest(changes)),
    onSuccess: (settings: UserSettings) => queryClient.setQueryData(settingsQueryKey, settings),
  });
}

export function useSendTestNotification() {
  return useMutation({ mutationFn: () => answerOf(sendTestNotificationRequest()) });
}

/** A change to one database: on or off, or which agent runs it. The server answers the whole list. */
export type DatabaseChange =
  | { id: string; isActive: boolean }
  | { id: string; agentId: string }
  | { id: string; pitrEnabled: boolean }
  | { id: string; schedule: DatabaseScheduleInput };

export function useChangeDatabase() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (change: DatabaseChange) =>
      answerOf(
        "schedule" in change
          ? setDatabaseScheduleRequest(change.id, change.schedule)
          : "agentId" in change
            ? chooseDatabaseAgentRequest(change.id, change.agentId)
            : "pitrEnabled" in change
              ? setPointInTimeRecoveryRequest(change.id, change.pitrEnabled)
              : setDatabaseActiveRequest(change.id, change.isActive),
      ),
    onSuccess: (databases) => queryClient.setQueryData(databasesQueryKey, databases),
  });
}

/** Writes a change to the agents into the system status entry (the dashboard's card reads it too). */
function useUpdateAgents() {
  const queryClient = useQueryClient();
  return (change: (list: UserAgent[]) => UserAgent[]) =>
    queryClient.setQueryData<SystemStatus>(systemStatusQueryKey, (current) => (current ? { ...current, agents: change(current.agents) } : current));
}

/** Restart, update or reset an agent (POST /api/agents/manage/{agentId}). */
export function useManageAgent() {
  return useMutation({ mutationFn: ({ agentId, action }: { agentId: string; action: AgentAction }) => answerOf(manageAgentRequest(agentId, action)) });
}

export function useRenameAgent() {
  const updateAgents = useUpdateAgents();
  return useMutation({
    mutationFn: ({ agentId, name }: { agentId: string; name: string }) => answerOf(renameAgentRequest(agentId, name)),
    onSuccess: (renamed) => updateAgents((list) => list.map((agent) => (agent.id === renamed.id ? renamed : agent))),
  });
}

/** Removal only: the page takes the agent off its list (and keeps it off when the list is read again). */
export function useRemoveAgent() {
  return useMutation({ mutationFn: (agentId: string) => answerOf(removeAgentRequest(agentId)) });
}

/** Approves a set-up code (POST /api/agents/{agentId}/setup-approval): that machine may then register the agent again. */
export function useApproveSetupCode() {
  return useMutation({
    mutationFn: ({ agentId, setupCode, credentials }: { agentId: string; setupCode: string; credentials: { password?: string; code?: string } }) =>
      answerOf(approveSetupCodeRequest(agentId, setupCode, credentials)),
  });
}
