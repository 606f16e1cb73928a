// Test stand-in for the server's slice upload: each slice lands in a directory as its file and
// description, as the server stores them (and, like the server, refuses other contents in a
// place already taken). Tests then read the chain back with the key.
import { mkdir, readdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "bun:test";
import { BSON, type Timestamp } from "bson";
import type { MongoClient } from "mongodb";
import { decryptBuffer } from "../../../archive/index.ts";
import { createEntryFilter } from "../entry-filter.ts";
import { ShippingStore, type SpooledSlice } from "../shipping-store.ts";
import { type ShipOplogOptions, shipOplog } from "../ship-oplog.ts";
import type { UploadSlice } from "../slice-uploader.ts";

/** The server as down: while this file is in the directory, every upload fails as an unreachable server's would. */
export const SINK_DOWN_FILE = ".down";

export function uploadToDirectory(directory: string): UploadSlice {
  return async (slice, body) => {
    await mkdir(directory, { recursive: true });
    if (
      await stat(join(directory, SINK_DOWN_FILE)).then(
        () => true,
        () => false,
      )
    )
      throw new Error("cannot reach the DBVault server (the test took it down)");
    const name = `${slice.chain}-${String(slice.sequence).padStart(10, "0")}`;
    // As the server does: a place in a chain is taken once; the same slice again is fine.
    const stored = await readFile(join(directory, `${name}.json`), "utf8").then(JSON.parse, () => undefined);
    if (stored && stored.sha256 !== slice.sha256) throw new Error(`slice ${slice.sequence} of chain ${slice.chain} is already stored with other contents`);
    await writeFile(join(directory, `.${name}.tmp`), new Uint8Array(await body.arrayBuffer()));
    await writeFile(join(directory, `${name}.json`), JSON.stringify(slice));
    await rename(join(directory, `.${name}.tmp`), join(directory, `${name}.enc.dbvault`));
  };
}

/**
 * Runs a shipper of `database` whose state is in `directory`/state and whose server is the
 * directory `directory`/server, with short slice times for tests; `stop` ends it.
 */
export function shipToDirectory(client: MongoClient, database: string, masterKey: Uint8Array, directory: string, overrides: Partial<ShipOplogOptions> = {}) {
  const abort = new AbortController();
  const sealed: SpooledSlice[] = [];
  const shipping = shipOplog({
    client,
    database,
    sealing: { masterKey },
    store: new ShippingStore(join(directory, "state")),
    upload: uploadToDirectory(join(directory, "server")),
    signal: abort.signal,
    log: () => {},
    maxAgeMs: 150,
    idleSealMs: 300,
    retryDelayMs: 50,
    onSealed: (slice) => sealed.push(slice),
    ...overrides,
  });
  return {
    sealed,
    async stop() {
      abort.abort();
      await shipping;
    },
  };
}

/** A shipped slice read back: its description, its preamble and its entries. */
export type ReadSlice = { description: SpooledSlice; plaintext: Buffer; preamble: Record<string, unknown>; entries: Record<string, unknown>[] };

const timeOf = (ts: Timestamp) => ({ t: ts.high >>> 0, i: ts.low >>> 0 });

/** Every slice in the directory, decrypted, in chain order (by start). */
export async function readShippedSlices(directory: string, masterKey: Uint8Array): Promise<ReadSlice[]> {
  const names = (await readdir(directory).catch(() => [] as string[])).filter((name) => name.endsWith(".enc.dbvault"));
  const slices: ReadSlice[] = [];
  for (const name of names) {
    const description = JSON.parse(await readFile(join(directory, name.replace(/\.enc\.dbvault$/, ".json")), "utf8"));
    slices.push(await openSlice(await readFile(join(directory, name)), masterKey, description));
  }
  return sortSlices(slices);
}

/** Decrypts one slice file and splits its entries; the description is the preamble's unless given. */
export async function openSlice(file: Uint8Array, masterKey: Uint8Array, description?: ReadSlice["description"]): Promise<ReadSlice> {
  const { header, plaintext } = await decryptBuffer(file, { masterKey });
  if (header.payloadKind !== "oplog-slice") throw new Error(`a ${header.payloadKind}, not a slice`);
  const documents: Record<string, unknown>[] = [];
  for (let at = 0; at < plaintext.length; ) {
    const size = plaintext.readInt32LE(at);
    documents.push(BSON.deserialize(plaintext.subarray(at, at + size)));
    at += size;
  }
  const preamble = documents[0]!;
  const o = preamble.o as { chain: string; sequence: number; database: string; start: Timestamp; end: Timestamp; entries: number };
  const own = {
    chain: o.chain,
    sequence: o.sequence,
    database: o.database,
    start: timeOf(o.start),
    end: timeOf(o.end),
    entries: o.entries,
  } as ReadSlice["description"];
  return { description: description ?? own, plaintext, preamble, entries: documents.slice(1) };
}

/** Slices in chain order (by start). */
export const sortSlices = (slices: ReadSlice[]) =>
  slices.sort((a, b) => a.description.start.t - b.description.start.t || a.description.start.i - b.description.start.i);

/** An entry's position as "t,i". */
export const positionOf = (entry: Record<string, unknown>) => {
  const { t, i } = timeOf(entry.ts as Timestamp);
  return `${t},${i}`;
};

/** Checks the chain rules on what was shipped and answers the positions of the entries it holds. */
export function checkChains(slices: ReadSlice[], database: string): string[] {
  const held: string[] = [];
  for (const [index, slice] of slices.entries()) {
    const { description, preamble, entries } = slice;
    const o = preamble.o as Record<string, unknown>;
    expect(preamble.op).toBe("n");
    expect(o.database).toBe(database);
    expect(o.chain).toBe(description.chain);
    expect(o.sequence).toBe(description.sequence);
    expect(o.entries).toBe(entries.length);
    expect(entries.length).toBe(description.entries);
    expect(positionOf({ ts: o.start })).toBe(`${description.start.t},${description.start.i}`);
    expect(positionOf({ ts: o.end })).toBe(`${description.end.t},${description.end.i}`);
    const previous = slices[index - 1]?.description;
    if (description.sequence > 0) {
      expect(previous?.chain).toBe(description.chain);
      expect(previous?.sequence).toBe(description.sequence - 1);
      expect(description.start).toEqual(previous!.end);
    }
    for (const entry of entries) {
      const ts = entry.ts as Timestamp;
      const at = { t: ts.high >>> 0, i: ts.low >>> 0 };
      const after = (a: { t: number; i: number }, b: { t: number; i: number }) => a.t > b.t || (a.t === b.t && a.i > b.i);
      expect(after(at, description.start)).toBe(true);
      expect(after(at, description.end)).toBe(false);
      held.push(positionOf(entry));
    }
  }
  return held;
}

/** The database's entries in the oplog between two positions, as the filter keeps them. */
export async function expectedPositions(client: MongoClient, database: string, from: { t: number; i: number }, to: { t: number; i: number }) {
  const keep = createEntryFilter(database);
  const all = await client.db("local").collection("oplog.rs").find({}).sort({ $natural: 1 }).toArray();
  const within = (entry: Record<string, unknown>) => {
    const ts = entry.ts as Timestamp;
    const at = [ts.high >>> 0, ts.low >>> 0] as const;
    const gt = at[0] > from.t || (at[0] === from.t && at[1] > from.i);
    const le = at[0] < to.t || (at[0] === to.t && at[1] <= to.i);
    return gt && le;
  };
  return all
    .filter((entry) => keep(BSON.serialize(entry), { op: entry.op as string, ns: entry.ns as string | undefined }) !== undefined && within(entry))
    .map(positionOf);
}
