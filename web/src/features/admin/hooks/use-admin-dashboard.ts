// The Admin Dashboard's data and actions. Every action changes the list only after the server
// agreed; a failure leaves the list as it was and shows the spec's message at the top (spec 8).
import { useCallback, useEffect, useState } from "react";
import { readErrorMessage } from "../../../lib/api-client";
import {
  type AdminAgent,
  type AdminPlan,
  type AdminUser,
  type BackupStats,
  backupStatsRequest,
  deleteAgentRequest,
  deleteUserRequest,
  listPlansRequest,
  listUserAgentsRequest,
  listUsersRequest,
  setBanRequest,
  type UserUpdate,
  updateUserRequest,
} from "../api/admin-api";
import { ADMIN_ACTION_ERRORS, ADMIN_LOAD_ERRORS, type AdminError } from "../utils/admin-messages";
import { applyBanState, banReasonToSend, emailToSave, removeById, replaceUser } from "../utils/admin-users";

type Answer<T> = { data: T | null; error: unknown };

/** Runs a call; resolves the answer's data, or throws an AdminError built from the failure. */
async function expectData<T>(call: () => Promise<Answer<T>>, message: string): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await call();
  } catch {
    throw { message, detail: null } satisfies AdminError;
  }
  if (answer.error || answer.data === null || answer.data === undefined) {
    throw { message, detail: readErrorMessage(answer.error) } satisfies AdminError;
  }
  return answer.data;
}

const isAdminError = (value: unknown): value is AdminError => typeof value === "object" && value !== null && "message" in value && "detail" in value;

const UPDATE_ERRORS: Record<keyof UserUpdate, string> = {
  plan: ADMIN_ACTION_ERRORS.plan,
  role: ADMIN_ACTION_ERRORS.role,
  status: ADMIN_ACTION_ERRORS.status,
  email: ADMIN_ACTION_ERRORS.email,
};

export function useAdminDashboard() {
  const [users, setUsers] = useState<AdminUser[]>([]);
  const [plans, setPlans] = useState<AdminPlan[]>([]);
  const [stats, setStats] = useState<BackupStats | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<AdminError | null>(null);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  // Agents belong to the user they were fetched for, so a late answer for another user is ignored.
  const [agents, setAgents] = useState<{ userId: string; list: AdminAgent[] } | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let active = true;
    const settle = <T>(call: () => Promise<Answer<T>>, message: string) => expectData(call, message);
    Promise.allSettled([
      settle(listUsersRequest, ADMIN_LOAD_ERRORS.users),
      settle(backupStatsRequest, ADMIN_LOAD_ERRORS.stats),
      settle(listPlansRequest, ADMIN_LOAD_ERRORS.plans),
    ]).then(([usersResult, statsResult, plansResult]) => {
      if (!active) return;
      if (usersResult.status === "fulfilled") {
        setUsers(usersResult.value);
        setSelectedId(usersResult.value[0]?._id ?? null);
      }
      if (statsResult.status === "fulfilled") setStats(statsResult.value);
      if (plansResult.status === "fulfilled") setPlans(plansResult.value);
      const failure = [usersResult, statsResult, plansResult].find((result) => result.status === "rejected");
      if (failure) setError(isAdminError(failure.reason) ? failure.reason : { message: ADMIN_LOAD_ERRORS.fallback, detail: null });
      setLoading(false);
    });
    return () => {
      active = false;
    };
  }, []);

  useEffect(() => {
    if (!selectedId) return;
    let active = true;
    // Spec 7: a failure to list a user's agents reads as no agents.
    listUserAgentsRequest(selectedId)
      .then(({ data }) => data ?? [])
      .catch(() => [])
      .then((list) => {
        if (active) setAgents({ userId: selectedId, list });
      });
    return () => {
      active = false;
    };
  }, [selectedId]);

  /** Runs one admin action: clears the last error, and on failure shows the new one. */
  const perform = useCallback(async (action: () => Promise<void>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      await action();
      return true;
    } catch (failure) {
      setError(isAdminError(failure) ? failure : { message: ADMIN_LOAD_ERRORS.fallback, detail: null });
      return false;
    } finally {
      setBusy(false);
    }
  }, []);

  const updateUser = useCallback(
    (userId: string, change: UserUpdate) => {
      const field = (Object.keys(change)[0] ?? "plan") as keyof UserUpdate;
      return perform(async () => {
        const updated = await expectData(() => updateUserRequest(userId, change), UPDATE_ERRORS[field]);
        setUsers((list) => replaceUser(list, updated));
      });
    },
    [perform],
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
    [perform],
  );

  const deleteAgent = useCallback(
    (agentId: string) =>
      perform(async () => {
        await expectData(() => deleteAgentRequest(agentId), ADMIN_ACTION_ERRORS.deleteAgent);
        setAgents((current) => (current ? { ...current, list: removeById(current.list, agentId) } : current));
      }),
    [perform],
  );

  const deleteUser = useCallback(
    (userId: string) =>
      perform(async () => {
        await expectData(() => deleteUserRequest(userId), ADMIN_ACTION_ERRORS.deleteUser);
        setUsers((list) => removeById(list, userId));
        setSelectedId((id) => (id === userId ? null : id));
        setAgents(null);
      }),
    [perform],
  );

  const selectedUser = users.find((user) => user._id === selectedId) ?? null;
  return {
    users,
    plans,
    stats,
    loading,
    error,
    busy,
    selectedUser,
    agents: agents && agents.userId === selectedId ? agents.list : null,
    selectUser: setSelectedId,
    updateUser,
    saveEmail,
    setBan,
    deleteAgent,
    deleteUser,
  };
}
