// Fields any command may carry that are about transport, sessions or concerns rather than the
// command itself; they must never leak into stored collection options or index specs.

export const GENERIC_ARGUMENTS = new Set([
  "$db",
  "$readPreference",
  "$clusterTime",
  "$audit",
  "$client",
  "lsid",
  "txnNumber",
  "autocommit",
  "startTransaction",
  "readConcern",
  "writeConcern",
  "maxTimeMS",
  "comment",
  "apiVersion",
  "apiStrict",
  "apiDeprecationErrors",
  "mayBypassWriteBlocking",
  "clientOperationKey",
  "backpressure",
]);
