// The daily check of the copies in the customer's own buckets: a HEAD of each (its size and ETag
// against what was reported when it was written) and a full read-back of a sample (its SHA-256).
// It only reads: a copy found gone or changed is reported, never written again here.
import { createHash } from "node:crypto";
import type { CopiesToCheckAnswer, CopyCheckAnswer, CopyCheckResult, CopyToCheck } from "../../../protocol/agent-protocol";
import { openCopy } from "./copy-client.ts";
import type { CopyEntry } from "./copy-destination.ts";
import { describeHidden, listCopyVersions } from "./copy-versions.ts";

export interface CopyCheckOptions {
  /** How many copies found present by their HEAD are also read back whole: a number, or all of them. */
  sample: number | "all";
  /** [0, 1): which copies the sample takes. */
  random?: () => number;
  signal?: AbortSignal;
}

export interface CopyCheckRun {
  results: CopyCheckResult[];
  /** Copies to destinations this agent's config no longer has (removed, or written by another config): not checked. */
  notConfigured: CopyToCheck[];
}

/** Results per report (the server takes up to 10,000 at once). */
const REPORT_BATCH = 1_000;

/** What the check needs of the DBVault server (transport/server-client.ts). */
export interface CopyCheckServer {
  copiesToCheck(): Promise<CopiesToCheckAnswer>;
  reportCopyChecks(results: CopyCheckResult[]): Promise<CopyCheckAnswer>;
}

/**
 * One check, as the CLI and the daemon run it: asks the server which copies there are, checks
 * those in this config's buckets, reports the results. Throws what the server calls throw.
 */
export async function checkAndReportCopies(
  server: CopyCheckServer,
  entries: CopyEntry[],
  options: CopyCheckOptions,
): Promise<CopyCheckRun & { copies: CopyToCheck[]; answer: CopyCheckAnswer | null }> {
  const { copies } = await server.copiesToCheck();
  const run = await checkCopies(entries, copies, options);
  const answers: CopyCheckAnswer[] = [];
  for (let from = 0; from < run.results.length; from += REPORT_BATCH) answers.push(await server.reportCopyChecks(run.results.slice(from, from + REPORT_BATCH)));
  const answer = answers.length === 0 ? null : answers.reduce((sum, part) => ({ recorded: sum.recorded + part.recorded, alerts: sum.alerts + part.alerts }));
  return { ...run, copies, answer };
}

/** Checks each copy whose destination is in `entries`; never throws for a copy (its bucket's failure is its result). */
export async function checkCopies(entries: CopyEntry[], copies: CopyToCheck[], options: CopyCheckOptions): Promise<CopyCheckRun> {
  const byUrl = new Map(entries.map((entry) => [entry.url, entry]));
  const notConfigured = copies.filter((copy) => !byUrl.has(copy.destination));
  const checked = copies.filter((copy) => byUrl.has(copy.destination));
  const results: CopyCheckResult[] = [];
  for (const copy of checked) {
    options.signal?.throwIfAborted();
    results.push(await namingHiddenVersion(byUrl.get(copy.destination)!, copy, await headCopy(byUrl.get(copy.destination)!, copy)));
  }
  const present = results.flatMap((result, index) => (result.outcome === "present" && checked[index]!.sha256 ? [index] : []));
  for (const index of pickSample(present, options)) {
    options.signal?.throwIfAborted();
    const entry = byUrl.get(checked[index]!.destination)!;
    results[index] = await namingHiddenVersion(entry, checked[index]!, await readBackCopy(entry, checked[index]!, options.signal));
  }
  return { results, notConfigured };
}

function pickSample(indexes: number[], options: CopyCheckOptions): number[] {
  if (options.sample === "all") return indexes;
  const pool = [...indexes];
  const random = options.random ?? Math.random;
  const picked: number[] = [];
  while (picked.length < options.sample && pool.length > 0) picked.push(pool.splice(Math.floor(random() * pool.length), 1)[0]!);
  return picked;
}

const result = (copy: CopyToCheck, outcome: CopyCheckResult["outcome"], readBack: boolean, detail?: string): CopyCheckResult => ({
  backupId: copy.backupId,
  destination: copy.destination,
  outcome,
  readBack,
  ...(detail ? { detail: detail.slice(0, 1000) } : {}),
});

/** S3 quotes ETags; some services send them bare. */
const unquote = (etag: string) => etag.replace(/^W\//, "").replace(/^"|"$/g, "");

async function headCopy(entry: CopyEntry, copy: CopyToCheck): Promise<CopyCheckResult> {
  let stats: { size: number; etag: string };
  try {
    stats = await openCopy(entry).client.stat(copy.key);
  } catch (error) {
    return failedRead(copy, error, false);
  }
  if (copy.size !== null && stats.size !== copy.size) {
    return result(copy, "changed", false, `the object has ${stats.size} bytes instead of the ${copy.size} written`);
  }
  if (copy.etag && stats.etag && unquote(stats.etag) !== unquote(copy.etag)) {
    return result(copy, "changed", false, `its ETag is ${unquote(stats.etag)} instead of ${unquote(copy.etag)}: other bytes were written over it`);
  }
  return result(copy, "present", false);
}

async function readBackCopy(entry: CopyEntry, copy: CopyToCheck, signal?: AbortSignal): Promise<CopyCheckResult> {
  const hash = createHash("sha256");
  let size = 0;
  try {
    for await (const chunk of openCopy(entry).client.file(copy.key).stream()) {
      signal?.throwIfAborted();
      hash.update(chunk);
      size += chunk.byteLength;
    }
  } catch (error) {
    if (signal?.aborted) throw error;
    return failedRead(copy, error, true);
  }
  const sha256 = hash.digest("hex");
  if (sha256 !== copy.sha256) {
    return result(copy, "changed", true, `read back whole (${size} bytes), its SHA-256 is ${sha256} instead of the ${copy.sha256} written`);
  }
  return result(copy, "present", true);
}

/** A 404 is a copy gone (a HEAD carries no body, so a vanished bucket also reads NoSuchKey); anything else says nothing of the copy. */
function failedRead(copy: CopyToCheck, error: unknown, readBack: boolean): CopyCheckResult {
  const { code, message } = error as { code?: string; message?: string };
  if (code === "NoSuchKey" || code === "NoSuchBucket") {
    return result(copy, "missing", readBack, `the bucket has no object ${copy.key} (${code})`);
  }
  return result(copy, "unreachable", readBack, code ? `${code}${message ? `: ${message}` : ""}` : message || String(error));
}

/**
 * A copy found missing or changed in a versioned bucket may only be hidden (a delete marker, or a
 * newer version over it) with the version written still stored, locked: its detail then names
 * that version (same size, and ETag when one was recorded) and how to make it current again.
 */
async function namingHiddenVersion(entry: CopyEntry, copy: CopyToCheck, checked: CopyCheckResult): Promise<CopyCheckResult> {
  if (checked.outcome !== "missing" && checked.outcome !== "changed") return checked;
  const versions = await listCopyVersions(entry, copy.key).catch(() => null);
  if (!versions?.current) return checked;
  const written = versions.older.find(
    (version) => (copy.size === null || version.size === copy.size) && (!copy.etag || unquote(version.etag) === unquote(copy.etag)),
  );
  if (!written) return checked;
  const hidden = describeHidden(entry, copy.key, written.versionId, versions.current);
  const under = hidden.hiddenBy === "delete marker" ? `a delete marker (${hidden.currentVersionId})` : `a newer version (${hidden.currentVersionId})`;
  return result(
    copy,
    checked.outcome,
    checked.readBack,
    `${checked.detail}; the version written, ${written.versionId}, is still stored under ${under}: restore --from-copy reads it; to make it current again: ${hidden.bringBack}`,
  );
}
