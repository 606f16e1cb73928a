// What `setup` and `db add` say the database user may do, job by job: backups, point-in-time
// shipping, restores into the same database and into another one, each with the built-in roles
// it needs and which of them the user lacks; and which member the string's reads reach. Found
// from what the server says the user may do (connectionStatus with showPrivileges), never by
// trying. What each job needs, from mongod's role definitions (role_graph_builtins.cpp):
// - backups read every collection (find, listCollections, listIndexes): `read` on the database,
//   or `backup`, which also reads local.oplog.rs, what makes a backup one moment (consistent);
// - point-in-time shipping tails local.oplog.rs: `backup` (readAnyDatabase leaves local out);
// - restores write, drop, rename and index collections (`readWrite` on the target) and replay
//   the backup's oplog with applyOps on the cluster (`restore`); into a database other than the
//   string's they need the writes on any database (`readWriteAnyDatabase`).
import { describeGrant, describeMissingRoles, type RoleGrant } from "../../../protocol/oplog-roles.ts";

type Resource = { db?: string; collection?: string; cluster?: boolean; anyResource?: boolean };
export type Privilege = { resource: Resource; actions: string[] };

/** What the server told about the user, and about the member the string's reads reach. */
export type JobRolesFacts = {
  /** The database the string names (undefined: the whole server). */
  database: string | undefined;
  replicaSet: boolean;
  /** The authenticated user; undefined when access control is off. */
  user?: { user: string; db: string };
  /** The user's privileges; undefined when the server does not list them. */
  privileges?: Privilege[];
  /** The read preference mode the string names. */
  readPreference: string;
  /** The member a read with that preference reached. */
  reads: { host: string; secondary: boolean };
};

const READ_ACTIONS = ["find", "listCollections", "listIndexes"];
const WRITE_ACTIONS = ["insert", "update", "remove", "createCollection", "createIndex", "dropCollection", "renameCollectionSameDB"];

function allows(privileges: Privilege[], action: string, matches: (resource: Resource) => boolean): boolean {
  return privileges.some(
    (privilege) =>
      (privilege.actions.includes(action) || privilege.actions.includes("anyAction")) &&
      (privilege.resource.anyResource === true || matches(privilege.resource)),
  );
}

// mongod's patterns: {db: "", collection: ""} is every database but local and config.
const onDatabase = (database: string | undefined) => (resource: Resource) =>
  resource.collection === "" && (resource.db === "" || (database !== undefined && resource.db === database));
const onOplog = (resource: Resource) =>
  (resource.db === "local" && (resource.collection === "" || resource.collection === "oplog.rs")) || (resource.db === "" && resource.collection === "oplog.rs");
const onCluster = (resource: Resource) => resource.cluster === true;

type Job = { label: string; needs: RoleGrant[]; missing: RoleGrant[]; note?: string };

/** The jobs and what each lacks; `privileges` as connectionStatus lists them. */
export function assessJobs(facts: Required<Pick<JobRolesFacts, "privileges">> & JobRolesFacts): Job[] {
  const { privileges, database, replicaSet } = facts;
  const can = (actions: string[], matches: (resource: Resource) => boolean) => actions.every((action) => allows(privileges, action, matches));
  const readRole: RoleGrant = database === undefined ? { role: "readAnyDatabase", db: "admin" } : { role: "read", db: database };
  const writeRole: RoleGrant = database === undefined ? { role: "readWriteAnyDatabase", db: "admin" } : { role: "readWrite", db: database };
  const backup: RoleGrant = { role: "backup", db: "admin" };
  const restore: RoleGrant = { role: "restore", db: "admin" };
  const anyWrite: RoleGrant = { role: "readWriteAnyDatabase", db: "admin" };
  const readsData = can(READ_ACTIONS, onDatabase(database));
  const readsOplog = allows(privileges, "find", onOplog);
  const appliesOplog = allows(privileges, "applyOps", onCluster);
  const jobs: Job[] = [];
  if (replicaSet) {
    const note = readsData && !readsOplog ? `${describeMissingRoles([readRole])} alone gives backups that are not point-in-time consistent` : undefined;
    jobs.push({ label: "backups", needs: [backup], missing: readsData && readsOplog ? [] : [backup], ...(note ? { note } : {}) });
    jobs.push({ label: "point-in-time shipping", needs: [backup], missing: readsOplog ? [] : [backup] });
  } else {
    jobs.push({ label: "backups", needs: [readRole], missing: readsData ? [] : [readRole] });
  }
  const into = database === undefined ? "every database" : database;
  const writesHere = can(WRITE_ACTIONS, onDatabase(database));
  const writesAny = can(WRITE_ACTIONS, onDatabase(undefined));
  const applyNeed = replicaSet ? [restore] : [];
  const applyMissing = replicaSet && !appliesOplog ? [restore] : [];
  jobs.push({ label: `restores into ${into}`, needs: [writeRole, ...applyNeed], missing: [...(writesHere ? [] : [writeRole]), ...applyMissing] });
  if (database !== undefined) {
    jobs.push({ label: "restores into another database", needs: [anyWrite, ...applyNeed], missing: [...(writesAny ? [] : [anyWrite]), ...applyMissing] });
  }
  return jobs;
}

/** The lines `setup` and `db add` print for the database `name` (each said after "dbvault-agent: "). */
export function describeJobRoles(name: string, facts: JobRolesFacts): string[] {
  const lines: string[] = [];
  if (!facts.user) {
    lines.push(`roles for "${name}": not needed, the server has access control off (every job is allowed)`);
  } else if (!facts.privileges) {
    lines.push(`roles for "${name}": not checked, the server does not list the user's privileges (connectionStatus showPrivileges)`);
  } else {
    const jobs = assessJobs({ ...facts, privileges: facts.privileges });
    lines.push(`roles for "${name}", user "${facts.user.user}" (${facts.user.db}):`);
    for (const job of jobs) {
      const state = job.missing.length === 0 ? "held" : `missing ${describeMissingRoles(job.missing)}`;
      lines.push(`  ${job.label}: needs ${describeMissingRoles(job.needs)}, ${state}${job.note ? ` (${job.note})` : ""}`);
    }
    const missing = uniqueRoles(jobs.flatMap((job) => job.missing));
    if (missing.length > 0) lines.push(`hint: grant what a job lacks in mongosh as an administrator: ${describeGrant(facts.user, missing)}`);
  }
  lines.push(describeReads(facts));
  return lines;
}

function uniqueRoles(roles: RoleGrant[]): RoleGrant[] {
  const seen = new Map<string, RoleGrant>();
  for (const grant of roles) seen.set(`${grant.role}@${grant.db}`, grant);
  return [...seen.values()];
}

function describeReads({ replicaSet, readPreference, reads }: JobRolesFacts): string {
  const mode = `readPreference=${readPreference}`;
  if (!replicaSet) return `reads: from ${reads.host}, a standalone server (no secondary to read from)`;
  if (reads.secondary) return `reads: from the secondary ${reads.host} (${mode}); restores still write and read the primary`;
  if (readPreference === "primary") {
    return `reads: from the primary ${reads.host} (${mode}); add readPreference=secondaryPreferred to the string to back up from a secondary`;
  }
  return `reads: from the primary ${reads.host}: ${mode} found no secondary`;
}
