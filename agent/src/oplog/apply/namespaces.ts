// Where the entries of a source collection are applied. A restore applies them to the staging
// collection that stands for the collection's target (dump/builtin/staging.ts); the replay keeps
// track of which source collections exist as it goes, since entries create, rename and drop them.

export interface AppliedNamespace {
  db: string;
  name: string;
}

export interface NamespaceMapping {
  /** Where the source collection `collection`'s entries are applied, or undefined to leave them out. */
  locate(collection: string): AppliedNamespace | undefined;
}

/** The source collections that exist in the applied copy, as the entries create and drop them. */
export class ReplayedCollections {
  private readonly live: Set<string>;
  private readonly gone = new Set<string>();

  constructor(initial: Iterable<string>) {
    this.live = new Set(initial);
  }

  has(collection: string): boolean {
    return this.live.has(collection);
  }

  add(collection: string): void {
    this.live.add(collection);
    this.gone.delete(collection);
  }

  remove(collection: string): void {
    if (this.live.delete(collection)) this.gone.add(collection);
  }

  /** The source collections existing now, sorted. */
  existing(): string[] {
    return [...this.live].sort();
  }

  /** The source collections that existed at some point and exist no more, sorted. */
  removed(): string[] {
    return [...this.gone].sort();
  }
}
