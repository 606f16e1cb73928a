// Rules of backup verification and restore drills that the agent and the server must apply alike:
// how document counts are compared, and where a drill restores.

const BUCKETS = "system.buckets.";

/**
 * A time-series collection's data lives in `db.system.buckets.<name>`: the archive names that
 * namespace while a dump may count it as `db.<name>`. Both read as `db.<name>` here.
 */
function normaliseNamespace(namespace: string): string {
  const dot = namespace.indexOf(".");
  const collection = namespace.slice(dot + 1);
  return collection.startsWith(BUCKETS) ? `${namespace.slice(0, dot)}.${collection.slice(BUCKETS.length)}` : namespace;
}

/**
 * Compares the documents per namespace ("db.collection") that a backup should hold with what was
 * found in it; returns one sentence per difference (empty: they agree). A namespace that should
 * be there but is missing, or holds another number of documents, is a difference; namespaces found
 * beyond the expected ones are not (a file holding more than was counted loses nothing).
 */
export function compareNamespaceCounts(expected: Record<string, number>, found: Record<string, number>): string[] {
  const differences: string[] = [];
  const foundByName = new Map(Object.entries(found).map(([namespace, count]) => [normaliseNamespace(namespace), count]));
  for (const [namespace, count] of Object.entries(expected).sort(([a], [b]) => a.localeCompare(b))) {
    const actual = foundByName.get(normaliseNamespace(namespace));
    if (actual === undefined) differences.push(`${namespace} is missing (${count} document${count === 1 ? "" : "s"} expected)`);
    else if (actual !== count) differences.push(`${namespace} holds ${actual} document${actual === 1 ? "" : "s"}, ${count} expected`);
  }
  return differences;
}

/** The differences of compareNamespaceCounts as one message, at most `limit` of them named. */
export function describeCountDifferences(differences: string[], limit = 5): string {
  const named = differences.slice(0, limit).join("; ");
  const more = differences.length - limit;
  return more > 0 ? `${named}; and ${more} more` : named;
}

/**
 * The verification of a file found to hold `namespaces`: "ok" when it holds what was dumped
 * (`expected`, when known), else "failed" naming the differences.
 */
export function verificationOf(
  namespaces: Record<string, number>,
  expected: Record<string, number> | undefined | null,
): { status: "ok" | "failed"; namespaces: Record<string, number>; error?: string; notReplayed?: string } {
  const differences = expected ? compareNamespaceCounts(expected, namespaces) : [];
  if (differences.length === 0) return { status: "ok", namespaces };
  return { status: "failed", namespaces, error: `the stored file does not hold what was dumped: ${describeCountDifferences(differences)}` };
}

/** The suffix of every drill's scratch database. */
export const DRILL_DATABASE_SUFFIX = "_dbvault_drill";
/** MongoDB database names are at most 63 bytes (64 with the terminating NUL). */
const MAX_DATABASE_NAME_BYTES = 63;

/**
 * The scratch database a drill of the DBVault database `name` restores into: `<name>_dbvault_drill`,
 * with the characters MongoDB refuses in database names (and spaces) turned into "_", cut so the
 * whole stays within MongoDB's 63 bytes.
 */
export function drillDatabaseName(name: string): string {
  let base = name.replace(/[/\\. "$*<>:|?\u0000]/g, "_");
  while (new TextEncoder().encode(base + DRILL_DATABASE_SUFFIX).length > MAX_DATABASE_NAME_BYTES) base = base.slice(0, -1);
  return `${base}${DRILL_DATABASE_SUFFIX}`;
}
