// The roles check of `setup` and `db add`: one more connection, made the way dumps make it (the
// string's read preference included), asking the server what the user may do and which member
// the string's reads reach; job-roles.ts puts it in words. It never fails the command: a server
// that cannot be asked is said as "not checked".
import { connectClient, describeDriverError } from "../dump/builtin/client.ts";
import { readUriDatabase, readUriReadPreference } from "../dump/connection-string.ts";
import type { CommandContext } from "./context.ts";
import { describeJobRoles, type JobRolesFacts, type Privilege } from "./job-roles.ts";

/** Asks the server at `uri` within `timeoutMs`; throws the driver's error. */
export async function readJobRolesFacts(uri: string, timeoutMs: number): Promise<JobRolesFacts> {
  const client = await connectClient(uri, timeoutMs);
  try {
    // Sent with the string's read preference: answered by the member dumps would read.
    const hello = await client.db("admin").command({ hello: 1 }, { readPreference: client.readPreference });
    const status = await client.db("admin").command({ connectionStatus: 1, showPrivileges: true });
    const user = (status.authInfo?.authenticatedUsers as { user: string; db: string }[] | undefined)?.[0];
    const privileges = status.authInfo?.authenticatedUserPrivileges as Privilege[] | undefined;
    const host = typeof hello.me === "string" ? hello.me : (client.options.hosts[0]?.toString() ?? "the server");
    return {
      database: readUriDatabase(uri),
      replicaSet: typeof hello.setName === "string",
      ...(user ? { user } : {}),
      ...(Array.isArray(privileges) ? { privileges } : {}),
      readPreference: readUriReadPreference(uri),
      reads: { host, secondary: hello.secondary === true },
    };
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** Says, job by job, whether the user's roles suffice for the database `name`; never throws. */
export async function reportJobRoles(context: CommandContext, name: string, uri: string, timeoutMs: number): Promise<void> {
  let facts: JobRolesFacts;
  try {
    facts = await readJobRolesFacts(uri, timeoutMs);
  } catch (error) {
    context.say(`roles for "${name}": not checked (${describeDriverError(error, uri)})`);
    return;
  }
  for (const line of describeJobRoles(name, facts)) context.say(line);
}
