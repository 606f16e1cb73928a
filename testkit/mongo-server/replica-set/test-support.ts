// Shared by the replica-set suites: where the real oplog fixtures are, how to read and write
// concatenated BSON, and how to run the real mongodump/mongorestore.
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { BSON, EJSON } from "bson";
import { MongoClient } from "mongodb";
import { startMongoTestServer, type MongoTestServer } from "../server";
import type { ReplicaSetOptions } from "./replica-set";

/**
 * The real oplog fixtures, vendored in the repository (testkit/fixtures/mongo-oplogs, copied from
 * shared/fixtures so a standalone clone runs them too), or undefined if someone removed them.
 */
export const OPLOG_FIXTURES = ((): string | undefined => {
  const path = resolve(import.meta.dir, "../../fixtures/mongo-oplogs");
  return existsSync(path) ? path : undefined;
})();

export const FIXTURES_MISSING = `the real oplog fixtures are not at ${resolve(import.meta.dir, "../../fixtures/mongo-oplogs")}`;

const typed = { promoteValues: false, promoteBuffers: false, bsonRegExp: true } as const;

/** The documents of a concatenated-BSON file (what mongodump writes, oplog.bson), as raw bytes. */
export function splitBsonFile(bytes: Uint8Array): Buffer[] {
  const documents: Buffer[] = [];
  for (let at = 0; at < bytes.length; ) {
    const size = Buffer.from(bytes.buffer, bytes.byteOffset + at, 4).readInt32LE(0);
    documents.push(Buffer.from(bytes.subarray(at, at + size)));
    at += size;
  }
  return documents;
}

/** Parses a raw document keeping every BSON type (Int32 stays Int32, Long stays Long). */
export function parseTyped(raw: Uint8Array): Record<string, unknown> {
  return BSON.deserialize(raw, typed);
}

export function readFixtureEntries(path: string): Record<string, unknown>[] {
  return splitBsonFile(readFileSync(path)).map(parseTyped);
}

// Legacy extended JSON writes binaries as {$binary: "<base64>", $type: "<hex>"}, which bson's
// parser no longer reads; some fixtures are in that form.
function modernizeBinaries(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(modernizeBinaries);
  if (value === null || typeof value !== "object") return value;
  const fields = value as Record<string, unknown>;
  if (typeof fields.$binary === "string" && typeof fields.$type === "string") return { $binary: { base64: fields.$binary, subType: fields.$type } };
  return Object.fromEntries(Object.entries(fields).map(([key, inner]) => [key, modernizeBinaries(inner)]));
}

/** Extended JSON (canonical, relaxed or legacy) entries as concatenated BSON, types kept. */
export function encodeExtendedJson(entries: unknown[]): Buffer {
  return Buffer.concat(entries.map((entry) => BSON.serialize(EJSON.deserialize(modernizeBinaries(entry) as Record<string, unknown>, { relaxed: false }))));
}

/** A replica-set test server ("rs0", with the set's other options as given) and a driver connected to it. */
export async function startReplicaSetWithClient(options: Omit<ReplicaSetOptions, "name"> = {}): Promise<{ server: MongoTestServer; client: MongoClient }> {
  const server = await startMongoTestServer({ replicaSet: { name: "rs0", ...options } });
  const client = await new MongoClient(server.uri, { serverSelectionTimeoutMS: 5000 }).connect();
  return { server, client };
}

export async function stopWithClient({ server, client }: { server: MongoTestServer; client: MongoClient }): Promise<void> {
  await client.close();
  await server.stop();
}

export type ToolRun = { code: number; stdout: string; stderr: string };

/** Runs one of the real tools to completion; its output is returned, never thrown. */
export async function runTool(program: string, args: string[]): Promise<ToolRun> {
  const child = Bun.spawn([program, ...args], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}
