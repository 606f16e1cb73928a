// The MongoDB servers the agent's dump/restore tests run on, each test on each target:
//   test-server  the project's wire-protocol stand-in (testkit/mongo-server), always;
//   ferretdb     FerretDB 1.24 on SQLite (testkit/ferretdb.ts), when scripts/ensure-ferretdb.sh
//                could build it (otherwise its tests are skipped with the reason);
//   mongod       the real server MONGODB_TEST_URI names, when it is set.
// A target lacking what a test needs gets that test registered as skipped, its name saying which
// target and why, so a run lists what did not run where. testkit/README.md has the whole matrix.
import { test } from "bun:test";
import { findFerretDb, startFerretDb } from "./ferretdb";
import { type MongoTestTarget, startMongoTestServer } from "./mongo-server/index";
import { readRealServerUri } from "./mongo-server/config";

export type MongoTargetName = "test-server" | "ferretdb" | "mongod";

/** What a test may need that not every target has. */
export type TargetFeature =
  /** Decimal128, MinKey/MaxKey, JavaScript, symbol, undefined, DBPointer, NaN, nested arrays, odd field names. */
  | "all-bson-types"
  | "views"
  | "collations"
  | "validators"
  | "partial-and-ttl-indexes"
  /** Time-series collections stored as mongod stores them (system.buckets). */
  | "time-series"
  /** mongorestore can recreate secondary indexes (it sends the `ns` index option). */
  | "mongorestore-indexes"
  /** Users and roles, restored through _mergeAuthzCollections. */
  | "users-and-roles"
  /** Inserts replace top-level Timestamp(0, 0), as mongod does. */
  | "empty-timestamp-replacement"
  /** The server is the test's own: a whole-server restore touches nobody else's data. */
  | "private-server";

export interface MongoTargetSpec {
  name: MongoTargetName;
  /** Why this target cannot run here (FerretDB could not be built), or null when it can. */
  unavailable: string | null;
  /** What this target lacks, each with the reason its skipped tests show. */
  lacks: Partial<Record<TargetFeature, string>>;
  /** Starts the server (or points at it); the target's stop() releases it. */
  start(): Promise<MongoTestTarget>;
}

const FERRETDB = "FerretDB 1.24";

const TEST_SERVER: MongoTargetSpec = {
  name: "test-server",
  unavailable: null,
  lacks: {
    "time-series": "the test server keeps time-series collections as plain ones, without system.buckets",
  },
  async start() {
    const server = await startMongoTestServer();
    return { uri: server.uri, kind: "test-server", stop: () => server.stop() };
  },
};

function describeFerretDb(unavailable: string | null): MongoTargetSpec {
  return {
    name: "ferretdb",
    unavailable,
    lacks: {
      "all-bson-types": `${FERRETDB} stores no Decimal128, MinKey/MaxKey, JavaScript, symbol, undefined or DBPointer values, no NaN or infinities, no nested arrays and no field names with dots or repeated`,
      views: `${FERRETDB} has no views (create with viewOn is not implemented)`,
      collations: `${FERRETDB} has no collations`,
      validators: `${FERRETDB} has no validators`,
      "partial-and-ttl-indexes": `${FERRETDB} implements neither partialFilterExpression nor expireAfterSeconds`,
      "time-series": `${FERRETDB} has no time-series collections`,
      "mongorestore-indexes": `${FERRETDB} refuses the index option "ns", which mongorestore 100.18 sends with every index it recreates`,
      "users-and-roles": `${FERRETDB} has neither createUser (without its experimental authentication) nor _mergeAuthzCollections, through which users and roles are restored`,
      "empty-timestamp-replacement": `${FERRETDB} keeps empty timestamps on insert, so there is nothing to bypass`,
    },
    async start() {
      const server = await startFerretDb();
      return { uri: server.uri, kind: "ferretdb", stop: () => server.stop() };
    },
  };
}

function describeMongod(uri: string): MongoTargetSpec {
  return {
    name: "mongod",
    unavailable: null,
    lacks: {
      "private-server": "MONGODB_TEST_URI names a shared server: a whole-server restore would replace its other databases, users and roles",
    },
    async start() {
      return { uri, kind: "real", stop: async () => {} };
    },
  };
}

/** Every target of this run: the test server, FerretDB (perhaps unavailable), mongod when MONGODB_TEST_URI is set. */
export function listMongoTargets(): MongoTargetSpec[] {
  const targets = [TEST_SERVER, describeFerretDb(findFerretDb().missing)];
  const realUri = readRealServerUri();
  if (realUri) targets.push(describeMongod(realUri));
  return targets;
}

/** Why a test needing `needs` cannot run on `target`, or null when it can. */
export function explainSkip(target: MongoTargetSpec, needs: TargetFeature[] = []): string | null {
  if (target.unavailable !== null) return target.unavailable;
  const reasons = needs.map((feature) => target.lacks[feature]).filter((reason): reason is string => reason !== undefined);
  return reasons.length > 0 ? [...new Set(reasons)].join("; ") : null;
}

/**
 * Registers a test for `target`: a normal one when the target has everything `needs` names,
 * else a skipped one whose name ends with "[skipped on <target>: <why>]".
 */
export function testOnTarget(target: MongoTargetSpec, needs: TargetFeature[], name: string, body: () => Promise<void> | void, timeout?: number): void {
  const reason = explainSkip(target, needs);
  if (reason === null) test(name, body, timeout);
  else test.skip(`${name} [skipped on ${target.name}: ${reason}]`, body);
}
