// Settings → Security: the "Protect backups" policy, and the three changes to it. Each change
// answers the new state, which replaces the cached one.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { answerOf } from "../../../lib/api-client";
import type { Credentials } from "../../../components/auth/reauthentication-dialog";
import {
  type BackupProtection,
  backupProtectionRequest,
  cancelProtectionOffRequest,
  protectBackupsRequest,
  requestProtectionOffRequest,
} from "./backup-protection-api";

export const backupProtectionQueryKey = ["backup-protection"] as const;

export function useBackupProtection() {
  return useQuery({ queryKey: backupProtectionQueryKey, queryFn: () => answerOf(backupProtectionRequest()) });
}

/** A change to the policy: on success its answer becomes the cached state. */
function useProtectionChange<Input>(request: (input: Input) => Promise<{ data: { message: string; protection: BackupProtection } | null; error: unknown }>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: Input) => answerOf(request(input)),
    onSuccess: (answer) => queryClient.setQueryData(backupProtectionQueryKey, answer.protection),
  });
}

export const useProtectBackups = () => useProtectionChange((credentials: Credentials) => protectBackupsRequest(credentials));
export const useRequestProtectionOff = () => useProtectionChange((credentials: Credentials) => requestProtectionOffRequest(credentials));
export const useCancelProtectionOff = () => useProtectionChange(() => cancelProtectionOffRequest());
