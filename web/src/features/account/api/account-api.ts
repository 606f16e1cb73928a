import { api } from "../../../lib/api-client";

export const updateProfileRequest = (input: { name: string; email?: string; currentPassword?: string; code?: string }) => api.user.update.put(input);
export const changePasswordRequest = (input: {
  currentPassword?: string;
  newPassword: string;
  code?: string;
  rotateApiKey: boolean;
  revokeApiTokens?: boolean;
}) => api.user.password.put(input);
export const confirmEmailChangeRequest = (token: string) => api.auth["email-change"].confirm({ token }).post();
export const undoEmailChangeRequest = (token: string) => api.auth["email-change"].undo({ token }).post();
export const switchPlanRequest = (planId: string) => api.user.plan.put({ plan: planId });
// 'all' (the filter's default) is sent as empty: every action. The server's action schema (a union
// spread from the list of actions) reaches Eden as only '' | 'all', so the name is passed through.
export const auditLogsRequest = (page: number, action: string) =>
  api.user["audit-logs"].get({ query: { page, action: (action === "all" ? "" : action) as never } });
export const auditActionsRequest = () => api.user["audit-actions"].get();
/** The audit log as a file, under the list's action filter. */
export const auditExportRequest = (format: "csv" | "json", action: string) =>
  api.audit.export.get({ query: { format, action: (action === "all" ? "" : action) as never } });

// Answers as the server types them.
export type { Profile } from "../../../lib/api/get-profile";
export type { UserPlan } from "../../../lib/api/get-user-plan";
export type { Plan } from "../../../lib/api/get-plans";
export type AuditLogPage = NonNullable<Awaited<ReturnType<typeof auditLogsRequest>>["data"]>;
export type AuditLogEntry = AuditLogPage["logs"][number];
