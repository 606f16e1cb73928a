// Golden test of the offline point-in-time restore through the compiled binary
// (dbvault-agent restore --in BASE --oplog DIR --until TIME): the slices the real shipper shipped
// from the replica-set test server under a recorded workload restore each chosen moment exactly,
// with an oplog position or an ISO time; its refusals (a slice missing, a bad --until, a time
// before the base) say so in lowercase with a hint and leave the target untouched.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MongoClient } from "mongodb";
import type { MongoTestServer } from "../../testkit/mongo-server/server.ts";
import { startReplicaSetWithClient, stopWithClient } from "../../testkit/mongo-server/replica-set/test-support.ts";
import { encodeMasterKey } from "../src/archive/index.ts";
import { type Moment, recordHistory, snapshotDatabase } from "../src/oplog/chain/test-support/recorded-history.ts";
import type { SpooledSlice } from "../src/oplog/shipping/shipping-store.ts";
import { compareOplogTimes } from "../../protocol/oplog-position.ts";
import { BINARY_PATH, runAgent } from "./support/run-agent.ts";

const KEY = Buffer.alloc(32, 5);
let rs: { server: MongoTestServer; client: MongoClient };
let dir: string;
let config: string;
let history: { base: string; moments: Moment[]; slices: string };

beforeAll(async () => {
  rs = await startReplicaSetWithClient();
  dir = await mkdtemp(join(tmpdir(), "dbvault-pitr-cli-"));
  await mkdir(join(dir, "agent-tmp"));
  history = await recordHistory(rs.client, rs.server.uri, KEY, dir);
  config = join(dir, "agent.json");
  const databases = [{ name: "shop", uri: `${rs.server.uri}shop` }];
  await writeFile(config, JSON.stringify({ version: 1, masterKey: encodeMasterKey(KEY), databases, tools: { mode: "builtin" } }), { mode: 0o600 });
}, 120_000);
afterAll(async () => {
  await stopWithClient(rs);
  await rm(dir, { recursive: true, force: true });
});

// The agent's temporary directory: the slices' private copies go there, and must be gone after each restore.
const agentTemp = () => join(dir, "agent-tmp");
const restore = (...args: string[]) =>
  runAgent(["restore", "--db", "shop", "--in", history.base, "--config", config, "--quiet", ...args], {
    command: [BINARY_PATH],
    env: { TMPDIR: agentTemp() },
  });
const leftInTemp = async () => readdir(agentTemp());
const position = (moment: Moment) => `${moment.until.t},${moment.until.i}`;

test("restores a recorded moment by its oplog position, and the last one by its second", async () => {
  const moment = history.moments[2]!;
  const run = await restore("--oplog", history.slices, "--until", position(moment), "--to-db", "shop_cli", "--json");
  expect(run.stderr).toMatch(
    new RegExp(
      "^dbvault-agent: verifying the whole backup before changing anything\\n" +
        "dbvault-agent: restored \\d+ documents into 1 collection of shop_cli with the built-in engine from .*base\\.enc\\.dbvault; [^\\n]*\\n" +
        `dbvault-agent: replayed the oplog up to ${position(moment)}: \\d+ operations of the backup's oplog and [1-9]\\d* slices?\\n$`,
    ),
  );
  expect(run.exitCode).toBe(0);
  const json = JSON.parse(run.stdout);
  expect(json.pointInTime.until).toBe(position(moment));
  expect(json.pointInTime.slices.length).toBeGreaterThan(0);
  expect(await snapshotDatabase(rs.client, "shop_cli")).toBe(moment.contents);

  const last = history.moments.at(-1)!;
  const second = new Date(last.until.t * 1000).toISOString().replace(".000Z", "Z");
  const byTime = await restore("--oplog", history.slices, "--until", second, "--to-db", "shop_cli_time");
  expect(byTime.stderr).toContain(`dbvault-agent: replayed the oplog up to ${second} (every write of that second): `);
  expect(byTime.exitCode).toBe(0);
  expect(await leftInTemp()).toEqual([]);
  expect(await snapshotDatabase(rs.client, "shop_cli_time")).toBe(last.contents);
}, 120_000);

test("a slice missing: refused naming it, the target untouched", async () => {
  const partial = join(dir, "partial");
  await mkdir(partial);
  const names = (await readdir(history.slices)).filter((name) => name.endsWith(".enc.dbvault")).sort();
  // The slice to remove is one the restore needs, whatever layout the timing gave: it starts after
  // the base moment (recorded once the base backup ended, so past its consistent point) and ends
  // before the restore's moment, so a later slice follows it.
  const at = (name: string) => JSON.parse(readFileSync(join(history.slices, name.replace(".enc.dbvault", ".json")), "utf8")) as SpooledSlice;
  const last = history.moments.at(-1)!.until;
  const gone = names.findIndex((name, index) => {
    const slice = at(name);
    return index > 0 && compareOplogTimes(slice.start, history.moments[0]!.until) > 0 && compareOplogTimes(slice.end, last) < 0;
  });
  expect(gone).toBeGreaterThan(0);
  for (const name of names.filter((_, index) => index !== gone)) await copyFile(join(history.slices, name), join(partial, name));
  await rs.client
    .db("kept")
    .collection("c")
    .insertOne({ _id: "mine" } as never);
  const before = await snapshotDatabase(rs.client, "kept");
  const run = await restore("--oplog", partial, "--until", position(history.moments.at(-1)!), "--to-db", "kept");
  const [previous, missing, next] = [at(names[gone - 1]!), at(names[gone]!), at(names[gone + 1]!)];
  expect(run.stderr).toBe(
    "dbvault-agent: verifying the whole backup before changing anything\n" +
      "dbvault-agent: nothing was changed in kept\n" +
      `dbvault-agent: slice ${names[gone + 1]} (sequence ${next.sequence}) does not follow slice ${names[gone - 1]} (sequence ${previous.sequence}): slice ${missing.sequence} of chain ${missing.chain} is missing, so nothing was replaced\n` +
      "dbvault-agent: hint: the target database is unchanged; restore from the slices as the agent shipped them\n",
  );
  expect(run.exitCode).toBe(1);
  expect(await snapshotDatabase(rs.client, "kept")).toBe(before);
  expect(await leftInTemp()).toEqual([]);
}, 60_000);

test("usage and range refusals", async () => {
  const base = history.moments[0]!.until;
  const early = await restore("--oplog", history.slices, "--until", `${base.t - 60},0`, "--to-db", "kept");
  expect(early.stderr).toMatch(
    new RegExp(
      "^dbvault-agent: verifying the whole backup before changing anything\\n" +
        "dbvault-agent: nothing was changed in kept\\n" +
        `dbvault-agent: ${base.t - 60},0 is before the base backup's consistent point \\d+,\\d+, so nothing was replaced\\n` +
        "dbvault-agent: hint: choose a later time, or a base backup taken before it\\n$",
    ),
  );
  expect(early.exitCode).toBe(1);
  expect(await restore("--oplog", history.slices, "--until", "yesterday")).toMatchObject({
    stderr:
      'dbvault-agent: --until "yesterday" is neither a time to the second nor an oplog position\n' +
      "dbvault-agent: hint: e.g. --until 2026-11-27T14:37:05Z, or --until 1795760102,22 (seconds,increment)\n",
    exitCode: 2,
  });
  expect(await restore("--until", "1,1")).toMatchObject({
    stderr:
      "dbvault-agent: restore: --until needs --oplog DIR, the directory of the oplog slices to replay\ndbvault-agent: hint: run dbvault-agent help for usage\n",
    exitCode: 2,
  });
}, 60_000);
