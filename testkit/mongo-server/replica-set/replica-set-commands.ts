// The replica-set commands: what `hello` adds for a member, replSetGetStatus, replSetGetConfig
// and replSetStepDown. On a server started without a replica set they fail as on a standalone
// mongod (NoReplicationEnabled).
import { Long } from "bson";
import { isDocument } from "../bson-order";
import { readInteger } from "../command-args";
import type { CommandContext, CommandHandler, Document } from "../command-context";
import { CommandError } from "../errors";
import type { ReplicaSet } from "./replica-set";

function requireReplicaSet(context: CommandContext): ReplicaSet {
  if (!context.replicaSet) throw new CommandError(76, "not running with --replSet");
  return context.replicaSet;
}

/**
 * What a primary's hello adds, in mongod's order: `identity` before isWritablePrimary, `position`
 * after it.
 */
export function describeMember(replicaSet: ReplicaSet, host: string): { identity: Document; position: Document } {
  const { lastOpTime, lastWallTime } = replicaSet.oplog;
  const primary = replicaSet.primaryHostSeenFrom(host);
  return {
    identity: { topologyVersion: replicaSet.topologyVersion, hosts: replicaSet.hostsSeenFrom(host), setName: replicaSet.name, setVersion: 1 },
    position: {
      secondary: !replicaSet.isPrimary,
      ...(primary ? { primary } : {}),
      me: host,
      ...(replicaSet.isPrimary ? { electionId: replicaSet.electionId } : {}),
      lastWrite: { opTime: lastOpTime, lastWriteDate: lastWallTime, majorityOpTime: lastOpTime, majorityWriteDate: lastWallTime },
    },
  };
}

/**
 * For an awaitable hello (topologyVersion and maxAwaitTimeMS given, as a driver's monitor sends):
 * a promise that settles when the topology changes or the time is up; undefined when the client's
 * topology version is already stale, which mongod answers at once.
 */
export function awaitTopologyChange(context: CommandContext): Promise<void> | undefined {
  const replicaSet = context.replicaSet;
  const version = context.body.topologyVersion;
  const maxAwaitTimeMS = readInteger(context.body, "maxAwaitTimeMS");
  if (!replicaSet || !isDocument(version) || maxAwaitTimeMS === undefined) return undefined;
  if (!replicaSet.isCurrentTopology(version)) return undefined;
  return replicaSet.waitForTopologyChange(maxAwaitTimeMS);
}

function replSetGetStatus(context: CommandContext): Document {
  const replicaSet = requireReplicaSet(context);
  const { lastOpTime, lastWallTime } = replicaSet.oplog;
  const uptime = Math.floor((Date.now() - context.state.startedAt.getTime()) / 1000);
  return {
    set: replicaSet.name,
    date: new Date(),
    myState: replicaSet.isPrimary ? 1 : 2,
    term: Long.fromNumber(replicaSet.term),
    heartbeatIntervalMillis: Long.fromNumber(2000),
    majorityVoteCount: 1,
    writeMajorityCount: 1,
    votingMembersCount: 1,
    writableVotingMembersCount: 1,
    optimes: {
      lastCommittedOpTime: lastOpTime,
      lastCommittedWallTime: lastWallTime,
      readConcernMajorityOpTime: lastOpTime,
      appliedOpTime: lastOpTime,
      durableOpTime: lastOpTime,
      lastAppliedWallTime: lastWallTime,
      lastDurableWallTime: lastWallTime,
    },
    members: [
      {
        _id: 0,
        name: context.host(),
        health: 1,
        state: replicaSet.isPrimary ? 1 : 2,
        stateStr: replicaSet.isPrimary ? "PRIMARY" : "SECONDARY",
        uptime,
        optime: lastOpTime,
        optimeDate: new Date(lastOpTime.ts.t * 1000),
        lastAppliedWallTime: lastWallTime,
        lastDurableWallTime: lastWallTime,
        syncSourceHost: "",
        syncSourceId: -1,
        infoMessage: "",
        electionTime: lastOpTime.ts,
        electionDate: replicaSet.electionDate,
        configVersion: 1,
        configTerm: Long.fromNumber(replicaSet.term),
        self: true,
        lastHeartbeatMessage: "",
      },
    ],
  };
}

function replSetGetConfig(context: CommandContext): Document {
  const replicaSet = requireReplicaSet(context);
  return {
    config: {
      _id: replicaSet.name,
      version: 1,
      term: replicaSet.term,
      members: [
        {
          _id: 0,
          host: context.host(),
          arbiterOnly: false,
          buildIndexes: true,
          hidden: false,
          priority: 1,
          tags: {},
          secondaryDelaySecs: Long.fromNumber(0),
          votes: 1,
        },
      ],
      protocolVersion: Long.fromNumber(1),
      writeConcernMajorityJournalDefault: true,
      settings: { chainingAllowed: true, heartbeatIntervalMillis: 2000, electionTimeoutMillis: 10000 },
    },
  };
}

/**
 * Steps down (see ReplicaSet.stepDown), ending every open cursor as an election does. Admin
 * only, as on mongod.
 */
function replSetStepDown(context: CommandContext): Document {
  const replicaSet = requireReplicaSet(context);
  if (context.db !== "admin") throw new CommandError(13, "replSetStepDown may only be run against the admin database.");
  replicaSet.stepDown();
  context.cursors.endAllForStepDown(replicaSet.topologyVersion);
  return {};
}

// Commands a secondary refuses with NotWritablePrimary while the member is between terms.
const WRITE_COMMANDS = new Set([
  "insert",
  "update",
  "delete",
  "findAndModify",
  "create",
  "drop",
  "dropDatabase",
  "renameCollection",
  "createIndexes",
  "dropIndexes",
  "deleteIndexes",
  "applyOps",
  "createUser",
  "createRole",
  "dropUser",
  "dropRole",
]);

/** Throws NotWritablePrimary (10107) for a write while the member is a secondary. */
export function assertWritable(context: CommandContext, name: string): void {
  const replicaSet = context.replicaSet;
  if (!replicaSet || replicaSet.isPrimary || !WRITE_COMMANDS.has(name)) return;
  throw new CommandError(10107, "not primary", { topologyVersion: replicaSet.topologyVersion });
}

// Reads a secondary serves only to clients that said a secondary may answer: a read preference
// other than primary (`$readPreference`, which drivers send to a secondary they selected).
const READ_COMMANDS = new Set(["find", "aggregate", "count", "distinct", "listCollections", "listIndexes", "listDatabases", "dbStats", "collStats"]);

/** Throws NotPrimaryNoSecondaryOk (13435) for a read on a secondary without a secondary-tolerant read preference. */
export function assertReadable(context: CommandContext, name: string): void {
  const replicaSet = context.replicaSet;
  if (!replicaSet || replicaSet.isPrimary || !READ_COMMANDS.has(name)) return;
  const preference = context.body.$readPreference;
  const mode = isDocument(preference) ? preference.mode : undefined;
  if (typeof mode === "string" && mode !== "primary") return;
  throw new CommandError(13435, "not primary and secondaryOk=false", { topologyVersion: replicaSet.topologyVersion });
}

/** Whether a command counts as a read of its database in a member's read counts. */
export function isReadCommand(name: string): boolean {
  return READ_COMMANDS.has(name) || name === "getMore";
}

export const replicaSetCommands: Record<string, CommandHandler> = {
  replSetGetStatus,
  replSetGetConfig,
  replSetStepDown,
};
