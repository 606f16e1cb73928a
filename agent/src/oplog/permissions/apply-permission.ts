// Before a restore replays a backup's oplog: a user without the privileges to apply entries
// would fail at the first one, after every collection was staged. Asked first, the restore
// stops at once naming the roles to grant; the target is untouched either way.
import type { MongoClient } from "mongodb";
import { describeGrant, describeMissingRoles } from "../../../../protocol/oplog-roles.ts";
import { inspectUserAccess } from "./oplog-access.ts";

/** What is missing to apply entries into `database` (undefined: several), or undefined when nothing is or the server cannot say. */
export async function findMissingApplyPrivileges(client: MongoClient, database: string | undefined): Promise<{ problem: string; grant: string } | undefined> {
  let access;
  try {
    access = await inspectUserAccess(client, database);
  } catch {
    // A server that does not list privileges (FerretDB, an old mongod) is not refused for it:
    // the replay itself then says what the server refuses.
    return undefined;
  }
  if (access.canApplyOplog) return undefined;
  const roles = access.missingRoles.filter((grant) => grant.role !== "backup");
  const who = access.user ? `the user "${access.user.user}"` : "the user";
  return { problem: `${who} cannot apply oplog entries (missing: ${describeMissingRoles(roles)})`, grant: describeGrant(access.user, roles) };
}
