// A dump of the replica-set test server taken while it takes writes, and the state it must give
// back: the source as it was at the dump's last oplog entry. That moment is caught with the
// fault-injection hook: mongodump reads the oplog's newest entry to end its window, and commands
// run one at a time, so a snapshot taken when that read arrives is the state the entry it
// returns describes. Shared by the real mongorestore --oplogReplay test and the agent's restore.
import { Int32 } from "bson";
import type { Db } from "mongodb";
import { isDocument } from "../bson-order";
import type { MongoTestServer } from "../server";
import type { ServerState } from "../server-state";
import type { LooseDocument } from "../test-support";

export type DatabaseSnapshot = Record<string, { options: string; indexes: string[]; documents: string[] }>;

/** A database's contents, comparable exactly: documents (bytes, by _id), index specs, options. */
export function snapshotState(state: ServerState, database: string): DatabaseSnapshot {
  const collections = [...(state.databases.get(database)?.values() ?? [])].sort((a, b) => (a.name < b.name ? -1 : 1));
  return Object.fromEntries(
    collections.map((collection) => [
      collection.name,
      {
        options: JSON.stringify(collection.options),
        // mongorestore rebuilds index specs from a Go map, so their top-level field order varies
        // from run to run on any server; the order of the key's fields does matter and is kept.
        indexes: collection.indexes.map((index) => JSON.stringify(Object.fromEntries(Object.entries(index.spec).sort(([a], [b]) => (a < b ? -1 : 1))))).sort(),
        documents: [...collection.documents.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, stored]) => stored.raw.toString("base64")),
      },
    ]),
  );
}

/** A tiny seeded generator, so a failing run can be replayed. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const PAD = "x".repeat(300);
const SEEDED = 4000;

/** Fills `db` with orders (a validator, a compound index) and lines (a unique sparse index). */
export async function seedShop(db: Db): Promise<void> {
  await db.createCollection("orders", { validator: { total: { $exists: true } } });
  await db.collection<LooseDocument>("orders").createIndex({ customer: 1, placed: -1 }, { name: "by_customer" });
  await db.collection<LooseDocument>("lines").createIndex({ sku: 1 }, { unique: true, sparse: true });
  await db.collection<LooseDocument>("orders").insertMany(
    Array.from({ length: SEEDED }, (_, i) => ({
      _id: i,
      customer: `c${i % 97}`,
      placed: new Date(1_700_000_000_000 + i),
      total: new Int32(i),
      items: [i],
      pad: PAD,
    })),
  );
  await db
    .collection<LooseDocument>("lines")
    .insertMany(Array.from({ length: SEEDED }, (_, i) => ({ _id: `l${i}`, order: i, sku: `sku-${i}`, qty: 1, pad: PAD })));
}

/** Keeps the source's state as of each read of the oplog's newest entry (the last one ends a dump's window). */
export function watchWindowEnd(source: MongoTestServer, database: string): { snapshot(): DatabaseSnapshot | undefined; stop(): void } {
  let atWindowEnd: DatabaseSnapshot | undefined;
  source.intercept(({ name, db: on, body }) => {
    const sort = body.sort;
    if (name === "find" && on === "local" && body.find === "oplog.rs" && isDocument(sort) && Number(sort.$natural) === -1)
      atWindowEnd = snapshotState(source.state, database);
  });
  return { snapshot: () => atWindowEnd, stop: () => source.intercept(undefined) };
}

/** Inserts, updates ($inc, $push, $set, $unset), replaces and deletes in `db` until stopped; `stop` resolves to the count. */
export function startWrites(db: Db, seed: number): { stop(): Promise<number> } {
  const random = createRandom(seed);
  const orders = db.collection<LooseDocument>("orders");
  const lines = db.collection<LooseDocument>("lines");
  let writing = true;
  let writes = 0;
  const writer = (async () => {
    let next = SEEDED;
    while (writing) {
      const id = Math.floor(random() * next);
      const pick = random();
      if (pick < 0.3) await orders.insertOne({ _id: next++, customer: "new", placed: new Date(), total: new Int32(1), items: [], pad: PAD });
      else if (pick < 0.55) await orders.updateOne({ _id: id }, { $inc: { total: 5 }, $push: { items: writes } as never, $set: { "meta.touched": writes } });
      else if (pick < 0.65) await orders.updateOne({ _id: id }, { $unset: { pad: "" }, $set: { customer: `moved${writes}` } });
      else if (pick < 0.75) await orders.replaceOne({ _id: id }, { customer: "replaced", total: new Int32(0), placed: new Date(0) });
      else if (pick < 0.85) await orders.deleteOne({ _id: id });
      else if (pick < 0.95) await lines.updateOne({ _id: `l${id}` }, { $set: { qty: writes } });
      else await lines.deleteOne({ _id: `l${id}` });
      writes++;
    }
  })();
  return {
    async stop() {
      writing = false;
      await writer;
      return writes;
    },
  };
}
