// The line `setup` and `db add` print about point-in-time recovery, and the hint with the exact
// mongosh command that grants what is missing. Not being able to is no error: the feature is
// optional, so these are said, not thrown.
import type { PitrAccess } from "../../../../protocol/agent-protocol.ts";
import { describeGrant, describeMissingRoles } from "../../../../protocol/oplog-roles.ts";
import type { OplogAccess } from "./oplog-access.ts";

export type AccessLine = { line: string; hint?: string };

/** Says what `access` means for point-in-time recovery of the database `name`; never throws. */
export function describeOplogAccess(name: string, access: OplogAccess): AccessLine {
  if (access.kind === "standalone") {
    return {
      line: `point-in-time recovery: not available for "${name}", its server is standalone (it keeps no oplog)`,
      hint: "point-in-time recovery needs a replica set; a single-member replica set is enough (mongod --replSet, then rs.initiate())",
    };
  }
  if (access.missingRoles.length === 0) return { line: `point-in-time recovery: possible for "${name}" (the user can read the oplog and apply its entries)` };
  const cannot = [...(access.canReadOplog ? [] : ["read the oplog"]), ...(access.canApplyOplog ? [] : ["apply oplog entries"])].join(" or ");
  const who = access.user ? `the user "${access.user.user}"` : "the user";
  return {
    line: `point-in-time recovery: not possible yet for "${name}", ${who} cannot ${cannot} (missing: ${describeMissingRoles(access.missingRoles)})`,
    hint: `to turn it on later, grant the roles in mongosh as an administrator: ${describeGrant(access.user, access.missingRoles)}`,
  };
}

/** The facts the server records for the database, so the web can refuse turning PITR on. */
export function summarizeOplogAccess(access: OplogAccess): PitrAccess {
  if (access.kind === "standalone") return { status: "standalone", missingRoles: [] };
  return { status: access.missingRoles.length === 0 ? "ready" : "missing-roles", missingRoles: access.missingRoles };
}
