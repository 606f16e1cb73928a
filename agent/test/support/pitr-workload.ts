// The seeded random workload of the point-in-time acceptance test (issue 25 §5): inserts of
// documents of many BSON types (now and then into another database), upserts, updates with
// $set/$inc/$push/$unset, mixed operators, replacements and pipeline updates, updateMany,
// deletes, a multi-document transaction about every 50 operations (some aborted), and on demand
// the DDL of a history: a collection created, one renamed and one dropped (each name then
// created again by an insert), an index created and one dropped. The same seed plays the same
// operations in the same order, so a history that restores wrong can be played again (where the
// test's phases cut it depends on when slices are sealed).
import { type ClientSession, type Db, type Document, Long, type MongoClient, ObjectId } from "mongodb";
import { createRandom } from "../../src/dump/mongodump-archive/test-support.ts";

export type DdlKind = "create collection" | "create index" | "rename collection" | "drop collection" | "drop index";

type Id = number | string;

export class RandomWorkload {
  readonly random: () => number;
  private readonly db: Db;
  /** The ids each live collection holds (as far as the workload knows: only for choosing targets). */
  private readonly ids = new Map<string, Id[]>();
  private nextId = 0;
  readonly counts = { operations: 0, committed: 0, aborted: 0 };

  constructor(
    private readonly client: MongoClient,
    database: string,
    seed: number,
  ) {
    this.random = createRandom(seed);
    this.db = client.db(database);
  }

  private int(below: number) {
    return Math.floor(this.random() * below);
  }
  private pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** A value of one of the BSON types an application writes. */
  private value(depth = 0): unknown {
    const kinds = depth > 1 ? 7 : 9;
    switch (this.int(kinds)) {
      case 0:
        return this.int(1000);
      case 1:
        return Math.round(this.random() * 1e6) / 100 + 0.5;
      case 2:
        return `s${this.int(1e6).toString(36)}`;
      case 3:
        return this.random() < 0.5;
      case 4:
        return null;
      case 5:
        return new Date(1_790_000_000_000 + this.int(1e9));
      case 6:
        return this.random() < 0.5
          ? Long.fromNumber(2 ** 40 + this.int(1e6))
          : new ObjectId(
              this.int(2 ** 31)
                .toString(16)
                .padStart(24, "0"),
            );
      case 7:
        return Array.from({ length: this.int(4) }, () => this.value(depth + 1));
      default:
        return { k: this.int(100), deep: { flag: this.random() < 0.5, v: this.value(depth + 1) } };
    }
  }

  private document(_id: Id): Document {
    const document: Document = { _id, n: this.int(100), tags: [`t${this.int(5)}`] };
    if (this.random() < 0.7) document.price = this.value();
    if (this.random() < 0.6) document.nested = { k: this.int(100), deep: { flag: this.random() < 0.5 } };
    if (this.random() < 0.4) document.status = this.pick(["new", "paid", "sent"]);
    if (this.random() < 0.3) document.extra = this.value();
    return document;
  }

  private newId(): Id {
    const n = this.nextId++;
    return n % 3 === 0 ? `id-${n}` : n;
  }

  private liveCollections(): string[] {
    return [...this.ids.keys()];
  }

  private targetOf(collection: string): Id {
    const ids = this.ids.get(collection)!;
    // Now and then an id that is not there: the update or delete matches nothing.
    return ids.length === 0 || this.random() < 0.05 ? "missing" : this.pick(ids);
  }

  /** The collections the history starts with: orders (with an index later dropped), customers, scratch. */
  async seed(): Promise<void> {
    for (const name of ["orders", "customers", "scratch"]) {
      const documents = Array.from({ length: 8 }, () => this.document(this.newId()));
      await this.db.collection(name).insertMany(documents);
      this.ids.set(
        name,
        documents.map((document) => document._id),
      );
    }
    await this.db.collection("orders").createIndex({ status: 1 }, { name: "status_1" });
  }

  /** One random operation (a transaction about every 50); answers what it did. */
  async step(): Promise<string> {
    this.counts.operations++;
    if (this.random() < 1 / 50) return this.transaction();
    return this.write();
  }

  /** One write to a live collection, in `session` when given; `track` false leaves the known ids alone (an aborted transaction). */
  private async write(session?: ClientSession, track = true): Promise<string> {
    if (this.random() < 0.03) {
      // Another database's write (in a transaction too): shipped with it, never replayed into it.
      await this.client
        .db("elsewhere")
        .collection("noise")
        .insertOne({ n: this.int(1000) }, session ? { session } : {});
      return "insert into elsewhere.noise";
    }
    const name = this.pick(this.liveCollections().filter((collection) => !session || collection !== "scratch"));
    const collection = this.db.collection(name);
    const ids = this.ids.get(name)!;
    const options = session ? { session } : {};
    const roll = this.random();
    if (roll < 0.27) {
      const _id = this.newId();
      await collection.insertOne(this.document(_id), options);
      if (track) ids.push(_id);
      return `insert ${name} ${_id}`;
    }
    if (roll < 0.3) {
      // An update that inserts: the oplog holds an insert of the document it made.
      const _id = this.newId();
      await collection.updateOne({ _id } as Document, { $set: { status: "upserted" }, $inc: { n: 1 }, $push: { tags: "u" } } as Document, {
        ...options,
        upsert: true,
      });
      if (track) ids.push(_id);
      return `upsert ${name} ${_id}`;
    }
    const _id = this.targetOf(name);
    const filter = { _id } as Document;
    // n and nested.k stay numbers and tags an array (or missing), so $inc and $push always apply.
    if (roll < 0.38) {
      const path = this.pick(["status", "nested.label", "nested.deep.flag", "extra", "fresh.field"]);
      await collection.updateOne(filter, { $set: { [path]: this.value() } }, options);
      return `$set ${path} of ${name} ${_id}`;
    }
    if (roll < 0.42) {
      const index = this.int(3);
      await collection.updateOne({ _id, tags: { $type: "array" } } as Document, { $set: { [`tags.${index}`]: this.value() } }, options);
      return `$set tags.${index} of ${name} ${_id}`;
    }
    if (roll < 0.52) {
      const inc = this.random() < 0.5 ? { n: this.int(10) - 3 } : { "nested.k": 1, counter: 1.5 };
      await collection.updateOne(filter, { $inc: inc }, options);
      return `$inc of ${name} ${_id}`;
    }
    if (roll < 0.6) {
      const push: Document = this.random() < 0.7 ? { tags: `t${this.int(9)}` } : { tags: { $each: [this.value(), this.value()] } };
      await collection.updateOne(filter, { $push: push }, options);
      return `$push of ${name} ${_id}`;
    }
    if (roll < 0.66) {
      const path = this.pick(["status", "extra", "nested.deep", "price", "tags"]);
      await collection.updateOne(filter, { $unset: { [path]: "" } }, options);
      return `$unset ${path} of ${name} ${_id}`;
    }
    if (roll < 0.71) {
      await collection.updateOne(filter, { $set: { status: "mixed", "nested.k": this.int(9) }, $inc: { n: 2 }, $unset: { extra: "" } }, options);
      return `mixed update of ${name} ${_id}`;
    }
    if (roll < 0.76) {
      // The pipeline-style update the test server evaluates: a literal new root.
      await collection.updateOne(filter, [{ $replaceWith: { $literal: this.document(_id) } }], options);
      return `pipeline update of ${name} ${_id}`;
    }
    if (roll < 0.79) {
      const { _id: _, ...replacement } = this.document(_id);
      await collection.replaceOne(filter, replacement, options);
      return `replace ${name} ${_id}`;
    }
    if (roll < 0.82) {
      const above = this.int(100);
      await collection.updateMany({ n: { $gt: above } }, { $inc: { n: -1 }, $set: { bulk: above } }, options);
      return `updateMany ${name} n > ${above}`;
    }
    if (roll < 0.97) {
      await collection.deleteOne(filter, options);
      if (track) ids.splice(ids.indexOf(_id), ids.includes(_id) ? 1 : 0);
      return `delete ${name} ${_id}`;
    }
    const below = this.int(8);
    const gone = (await collection.find({ n: { $lt: below } }, { ...options, projection: { _id: 1 } }).toArray()).map(
      (document) => document._id as unknown as Id,
    );
    await collection.deleteMany({ n: { $lt: below } }, options);
    if (track)
      this.ids.set(
        name,
        ids.filter((id) => !gone.includes(id)),
      );
    return `deleteMany ${name} n < ${below}`;
  }

  /** Two to six writes in one transaction across collections; about one in four aborted. */
  private async transaction(): Promise<string> {
    const writes = 2 + this.int(5);
    const abort = this.random() < 0.25;
    const session = this.client.startSession();
    const done: string[] = [];
    try {
      session.startTransaction();
      for (let n = 0; n < writes; n++) done.push(await this.write(session, !abort));
      if (abort) await session.abortTransaction();
      else await session.commitTransaction();
    } finally {
      await session.endSession();
    }
    this.counts[abort ? "aborted" : "committed"]++;
    return `${abort ? "aborted" : "committed"} transaction [${done.join("; ")}]`;
  }

  /** One step of the history's DDL. */
  async ddl(kind: DdlKind): Promise<string> {
    switch (kind) {
      case "create collection":
        // With options, which a replay must create it with.
        await this.db.createCollection("invoices", { validator: { n: { $type: "number" } }, validationLevel: "moderate" });
        this.ids.set("invoices", []);
        return "created invoices";
      case "create index":
        // On the collection renamed later: the index must move with it.
        await this.db.collection("customers").createIndex({ "nested.k": 1, n: -1 }, { name: "nested_k_n", sparse: true });
        return "created index nested_k_n on customers";
      // The old names come back at once, created by a first insert: a replay must not confuse them.
      case "rename collection": {
        await this.db.collection("customers").rename("clients");
        this.ids.set("clients", this.ids.get("customers")!);
        const _id = this.newId();
        await this.db.collection("customers").insertOne(this.document(_id));
        this.ids.set("customers", [_id]);
        return `renamed customers to clients, inserted ${_id} into a new customers`;
      }
      case "drop collection": {
        await this.db.collection("scratch").drop();
        const _id = this.newId();
        await this.db.collection("scratch").insertOne(this.document(_id));
        this.ids.set("scratch", [_id]);
        return `dropped scratch, inserted ${_id} into a new scratch`;
      }
      case "drop index":
        await this.db.collection("orders").dropIndex("status_1");
        return "dropped index status_1 of orders";
    }
  }
}
