// The Admin Dashboard's data and actions. Every action changes the list only after the server
// agreed; a failure leaves the list as it was and shows the spec's message at the top (spec 8).
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useState } from "react";
import {
  type AdminAgent,
  type AdminPlan,
  type AdminUser,
  deleteAgentRequest,
  deleteUserRequest,
  setBanRequest,
  type UserUpdate,
  updateUserRequest,
} from "../api/admin-api";
import { usePendingAction } from "../../../lib/api/use-pending-action";
import { adminUsersQueryKey, expectData, useAdminPlans, useAdminUsers, useBackupStats, userAgentsQueryKey, useUserAgents } from "../api/get-admin-dashboard";
import { ADMIN_ACTION_ERRORS, ADMIN_LOAD_ERRORS, type AdminError } from "../utils/admin-messages";
import { applyBanState, banReasonToSend, emailToSave, removeById, replaceUser } from "../utils/admin-users";

const isAdminError = (value: unknown): value is AdminError => typeof value === "object" && value !== null && "message" in value && "detail" in value;

const NO_USERS: AdminUser[] = [];
const NO_PLANS: AdminPlan[] = [];

const UPDATE_ERRORS: Record<keyof UserUpdate, string> = {
  plan: ADMIN_ACTION_ERRORS.plan,
  role: ADMIN_ACTION_ERRORS.role,
  status: ADMIN_ACTION_ERRORS.status,
  email: ADMIN_ACTION_ERRORS.email,
};

export function useAdminDashboard() {
  const queryClient = useQueryClient();
  const usersQuery = useAdminUsers();
  const statsQuery = useBackupStats();
  const plansQuery = useAdminPlans();
  const users = usersQuery.data ?? NO_USERS;
  // Until the admin picks one, the first user of the list is shown.
  const [chosenId, setChosenId] = useState<string | null | undefined>(undefined);
  const selectedId = chosenId === undefined ? (users[0]?._id ?? null) : chosenId;
  const agentsQuery = useUserAgents(selectedId);
  // undefined until an action ran: the page then shows what failed to load, if anything did.
  const [actionError, setError] = useState<AdminError | null | undefined>(undefined);
  // One action at a time: the page disables every control while one runs.
  const { run, busy } = usePendingAction();
  const loading = usersQuery.isPending || statsQuery.isPending || plansQuery.isPending;
  const loadError = [usersQuery, statsQuery, plansQuery].find((query) => query.isError)?.error ?? null;
  const error =
    actionError === undefined ? loadError && (isAdminError(loadError) ? loadError : { message: ADMIN_LOAD_ERRORS.fallback, detail: null }) : actionError;

  const setUsers = useCallback(
    (change: (list: AdminUser[]) => AdminUser[]) => queryClient.setQueryData<AdminUser[]>(adminUsersQueryKey, (list) => (list ? change(list) : list)),
    [queryClient],
  );

  /** Runs one admin action: clears the last error, and on failure shows the new one. */
  const perform = useCallback(
    async (action: () => Promise<void>): Promise<boolean> => {
      setError(null);
      try {
        await run(action);
        return true;
      } catch (failure) {
        setError(isAdminError(failure) ? failure : { message: ADMIN_LOAD_ERRORS.fallback, detail: null });
        return false;
      }
    },
    [run],
  );

  const updateUser = useCallback(
    (userId: string, change: UserUpdate) => {
      const field = (Object.keys(change)[0] ?? "plan") as keyof UserUpdate;
      return perform(async () => {
        const updated = await expectData(() => updateUserRequest(userId, change), UPDATE_ERRORS[field]);
        setUsers((list) => replaceUser(list, updated));
      });
    },
    [perform, setUsers],
  );

  const saveEmail = useCallback(
    (userId: string, email: string) => {
      const value = emailToSave(email);
      if (value === null) return Promise.resolve(false);
      return updateUser(userId, { email: value });
    },
    [updateUser],
  );

  const setBan = useCallback(
    (userId: string, isBanned: boolean, reason = "") =>
      perform(async () => {
        const body = isBanned ? { isBanned, banReason: banReasonToSend(reason) } : { isBanned, banReason: null };
        const state = await expectData(() => setBanRequest(userId, body), ADMIN_ACTION_ERRORS.ban);
        setUsers((list) => applyBanState(list, userId, state));
      }),
    [perform, setUsers],
  );

  const deleteAgent = useCallback(
    (agentId: string) =>
      perform(async () => {
        await expectData(() => deleteAgentRequest(agentId), ADMIN_ACTION_ERRORS.deleteAgent);
        queryClient.setQueryData<AdminAgent[]>(userAgentsQueryKey(selectedId), (list) => (list ? removeById(list, agentId) : list));
      }),
    [perform, queryClient, selectedId],
  );

  const deleteUser = useCallback(
    (userId: string) =>
      perform(async () => {
        await expectData(() => deleteUserRequest(userId), ADMIN_ACTION_ERRORS.deleteUser);
        setUsers((list) => removeById(list, userId));
        setChosenId(selectedId === userId ? null : selectedId);
      }),
    [perform, setUsers, selectedId],
  );

  const selectedUser = users.find((user) => user._id === selectedId) ?? null;
  return {
    users,
    plans: plansQuery.data ?? NO_PLANS,
    stats: statsQuery.data ?? null,
    loading,
    error,
    busy,
    selectedUser,
    agents: selectedId ? (agentsQuery.data ?? null) : null,
    selectUser: setChosenId as (userId: string | null) => void,
    updateUser,
    saveEmail,
    setBan,
    deleteAgent,
    deleteUser,
  };
}
