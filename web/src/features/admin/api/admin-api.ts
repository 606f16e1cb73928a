// The admin console's calls (spec 7, /api/admin/*), through the typed client; the answer types
// below are taken from the server's own route types, never written by hand.
import { api } from "../../../lib/api-client";

type UserChange = NonNullable<Parameters<ReturnType<typeof api.admin.users>["put"]>[0]>;
type BanChange = NonNullable<Parameters<ReturnType<typeof api.admin.users>["ban"]["put"]>[0]>;

export const listUsersRequest = () => api.admin.users.get();
export const backupStatsRequest = () => api.admin.stats.backups.get();
export const storageReplicaRequest = () => api.admin.stats.storage.get();
export const listPlansRequest = () => api.admin.plans.get();
export const listUserAgentsRequest = (userId: string) => api.admin.users({ id: userId }).agents.get();
export const updateUserRequest = (userId: string, change: UserChange) => api.admin.users({ id: userId }).put(change);
export const setBanRequest = (userId: string, change: BanChange) => api.admin.users({ id: userId }).ban.put(change);
export const deleteAgentRequest = (agentId: string) => api.admin.agents({ id: agentId }).delete();
export const deleteUserRequest = (userId: string) => api.admin.users({ id: userId }).delete();

type DataOf<T extends (...args: never[]) => Promise<{ data: unknown }>> = NonNullable<Awaited<ReturnType<T>>["data"]>;

export type AdminUser = DataOf<typeof listUsersRequest>[number];
export type AdminPlan = DataOf<typeof listPlansRequest>[number];
export type BackupStats = DataOf<typeof backupStatsRequest>;
export type StorageReplicaStatus = DataOf<typeof storageReplicaRequest>;
export type AdminAgent = DataOf<typeof listUserAgentsRequest>[number];
export type BanState = DataOf<typeof setBanRequest>;
export type UserUpdate = UserChange;
export const listOrganizationsRequest = () => api.admin.organizations.get();
export const changeOrganizationPlanRequest = (organizationId: string, plan: string) => api.admin.organizations({ id: organizationId }).plan.put({ plan });
export type AdminOrganization = DataOf<typeof listOrganizationsRequest>[number];
/** How far back point-in-time recovery reaches on a plan, in hours (0: not offered). */
export const updatePlanPitrWindowRequest = (planId: string, pitrWindowHours: number) => api.admin.plans({ id: planId }).put({ pitrWindowHours });
