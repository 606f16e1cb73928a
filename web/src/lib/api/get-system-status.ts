// The user's agents and the backup service's state: the dashboard's System Status card and
// Settings' agent list read the same entry.
import { type Answer, answerOrLog, api } from "../api-client";

export const systemStatusRequest = () => api.settings["system-status"].get();
export type SystemStatus = Answer<typeof systemStatusRequest>;
export type UserAgent = SystemStatus["agents"][number];

export const systemStatusQueryKey = ["system-status"] as const;
/** The one definition of this read: every screen that shows it uses these options. */
export const systemStatusQuery = { queryKey: systemStatusQueryKey, queryFn: () => answerOrLog("failed to fetch system status", systemStatusRequest()) };
