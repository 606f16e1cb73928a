export { type AccessLine, describeOplogAccess, summarizeOplogAccess } from "./describe-access.ts";
export { inspectOplogAccess, inspectUserAccess, type OplogAccess, type RoleGrant, type UserAccess } from "./oplog-access.ts";
export { findMissingApplyPrivileges } from "./apply-permission.ts";
