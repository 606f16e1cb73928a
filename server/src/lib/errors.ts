/** Machine-readable error codes sent beside every error message. */
export type ErrorCode =
  | "BAD_REQUEST"
  | "UNAUTHORIZED"
  | "TOKEN_EXPIRED"
  | "FORBIDDEN"
  | "TOKEN_SCOPE"
  /** The member's role in the organization is below what the operation needs. */
  | "ROLE"
  | "BANNED"
  | "TWO_FACTOR_REQUIRED"
  | "SSO_REQUIRED"
  /** A session from single sign-on reaches its organization only (modules/auth/session-scope.ts). */
  | "SSO_SESSION"
  | "REAUTHENTICATION_REQUIRED"
  | "INACTIVE"
  | "NOT_FOUND"
  | "CONFLICT"
  | "BACKUPS_PROTECTED"
  | "PAYLOAD_TOO_LARGE"
  | "RATE_LIMITED"
  | "PLAN_LIMIT"
  | "STORAGE_LIMIT_EXCEEDED"
  | "AGENT_OFFLINE"
  | "AGENT_REMOVED"
  /** setup --force without the agent's own credentials: a user approves the code answered (agents/setup-approval.ts). */
  | "AGENT_SETUP_APPROVAL_REQUIRED"
  | "MAIL_FAILED"
  | "SERVICE_UNAVAILABLE"
  | "INTERNAL";

/** An error whose message is safe to show the user; the error handler answers `{ message, code }`. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    /** Extra fields merged into the JSON answer (e.g. nextBackupAvailable). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "AppError";
  }
}

export const badRequest = (message: string) => new AppError(400, "BAD_REQUEST", message);
export const unauthorized = (message = "Please sign in to continue.") => new AppError(401, "UNAUTHORIZED", message);
export const forbidden = (message = "You do not have permission to do that.") => new AppError(403, "FORBIDDEN", message);
export const notFound = (what: string) => new AppError(404, "NOT_FOUND", `${what} not found.`);
export const conflict = (message: string) => new AppError(409, "CONFLICT", message);
