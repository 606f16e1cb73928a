// Applying oplog entries to a server: what consistent-snapshot and point-in-time restores
// replay into their staging collections. See apply-oplog.ts.
export { type ApplyOplogRequest, type ApplyOplogResult, applyOplog } from "./apply-oplog.ts";
export { OplogApplyError } from "./errors.ts";
export type { AppliedNamespace, NamespaceMapping } from "./namespaces.ts";
export { readEntryTimestamp } from "./entry.ts";
