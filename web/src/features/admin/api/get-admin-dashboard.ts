// The Admin Dashboard's reads as queries. A failed read throws the AdminError with the spec's
// message for it (spec 8), which the page shows at the top.
import { useQuery } from "@tanstack/react-query";
import { readErrorMessage } from "../../../lib/api-client";
import { ADMIN_LOAD_ERRORS, type AdminError } from "../utils/admin-messages";
import { backupStatsRequest, listPlansRequest, listUserAgentsRequest, listUsersRequest } from "./admin-api";

type Answer<T> = { data: T | null; error: unknown };

/** Runs a call; resolves the answer's data, or throws an AdminError built from the failure. */
export async function expectData<T>(call: () => Promise<Answer<T>>, message: string): Promise<T> {
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

export const adminUsersQueryKey = ["admin", "users"] as const;
export const userAgentsQueryKey = (userId: string | null) => ["admin", "users", userId, "agents"] as const;

export function useAdminUsers() {
  return useQuery<Awaited<ReturnType<typeof listUsersRequest>>["data"] & {}, AdminError>({
    queryKey: adminUsersQueryKey,
    queryFn: () => expectData(listUsersRequest, ADMIN_LOAD_ERRORS.users),
  });
}

export function useBackupStats() {
  return useQuery<Awaited<ReturnType<typeof backupStatsRequest>>["data"] & {}, AdminError>({
    queryKey: ["admin", "stats", "backups"],
    queryFn: () => expectData(backupStatsRequest, ADMIN_LOAD_ERRORS.stats),
  });
}

export function useAdminPlans() {
  return useQuery<Awaited<ReturnType<typeof listPlansRequest>>["data"] & {}, AdminError>({
    queryKey: ["admin", "plans"],
    queryFn: () => expectData(listPlansRequest, ADMIN_LOAD_ERRORS.plans),
  });
}

/** A user's agents; spec 7: a failure to list them reads as no agents. */
export function useUserAgents(userId: string | null) {
  return useQuery({
    queryKey: userAgentsQueryKey(userId),
    queryFn: () =>
      listUserAgentsRequest(userId ?? "")
        .then(({ data }) => data ?? [])
        .catch(() => []),
    enabled: userId !== null,
  });
}
