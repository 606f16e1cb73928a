// The user's databases with their agents and settings, listed by the dashboard and Settings.
import { useQuery } from "@tanstack/react-query";
import { type Answer, answerOrLog, api } from "../api-client";

export const listDatabasesRequest = () => api.settings.databases.get();
export type UserDatabase = Answer<typeof listDatabasesRequest>[number];

export const databasesQueryKey = ["databases"] as const;
/** The one definition of this read: every screen that shows it uses these options. */
export const databasesQuery = { queryKey: databasesQueryKey, queryFn: () => answerOrLog("failed to fetch databases", listDatabasesRequest()) };

export function useDatabases() {
  return useQuery(databasesQuery);
}
