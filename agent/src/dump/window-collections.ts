// The collections an oplog window writes to, so verification restores into scratch only those:
// the documents of a collection the window never names are what the read-back already proved, and
// replaying the window cannot change them. Cost then grows with what the window touched, not with
// the database.
import { BSON, type Document } from "bson";
import { TYPED } from "../oplog/database-filter.ts";

/** Collects the collections that raw oplog entries write to, create, drop or rename. */
export class WindowCollections {
  /** Full namespaces ("db.collection"). */
  readonly #found = new Set<string>();

  /** Takes one raw entry (an applyOps's operations, a transaction's included). */
  add(bytes: Uint8Array): void {
    this.#visit(BSON.deserialize(bytes, TYPED));
  }

  /** The databases found, sorted. */
  get databases(): string[] {
    return [...new Set([...this.#found].map((namespace) => namespace.slice(0, namespace.indexOf("."))))].sort();
  }

  /** The collections of `database` found (names without the database), sorted. */
  namesIn(database: string): string[] {
    const prefix = `${database}.`;
    return [...this.#found]
      .filter((namespace) => namespace.startsWith(prefix))
      .map((namespace) => namespace.slice(prefix.length))
      .sort();
  }

  #visit(entry: Document): void {
    if (entry.op === "n") return;
    const ns = typeof entry.ns === "string" ? entry.ns : "";
    const object = entry.o as Document | undefined;
    if (entry.op !== "c" || object === undefined) {
      this.#note(ns);
      return;
    }
    if (Array.isArray(object.applyOps)) {
      for (const inner of object.applyOps as Document[]) this.#visit(inner);
      return;
    }
    // A rename names both namespaces in full; every other command names its collection in the
    // command's own field (create, drop, createIndexes, collMod…) of the database in `ns`.
    if (typeof object.renameCollection === "string") {
      this.#note(object.renameCollection);
      if (typeof object.to === "string") this.#note(object.to);
      return;
    }
    const [command] = Object.keys(object);
    const collection = command === undefined ? undefined : object[command];
    if (typeof collection === "string") this.#note(`${databaseOf(ns)}.${collection}`);
  }

  #note(namespace: string): void {
    const dot = namespace.indexOf(".");
    if (dot <= 0) return;
    const collection = namespace.slice(dot + 1);
    if (collection !== "$cmd" && collection !== "") this.#found.add(namespace);
  }
}

function databaseOf(namespace: string): string {
  const dot = namespace.indexOf(".");
  return dot < 0 ? namespace : namespace.slice(0, dot);
}
