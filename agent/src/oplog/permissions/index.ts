export { checkOplogAccess, readUriDatabase } from "./check-access.ts";
export { type AccessLine, describeMissingRoles, describeOplogAccess } from "./describe-access.ts";
export { inspectOplogAccess, type OplogAccess, type RoleGrant } from "./oplog-access.ts";
