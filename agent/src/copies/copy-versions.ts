// A copy hidden in a versioned bucket: whoever holds the bucket's credentials (they sit on the
// database host) can put a delete marker on a copy, or a PUT of other bytes over it. Under Object
// Lock the version the agent wrote is still stored underneath, so it is looked for (S3
// ListObjectVersions) and read by its version id rather than the copy reported as lost.
import { parseCopyUrl } from "./copy-destination.ts";
import type { CopyEntry } from "./copy-destination.ts";
import { signedBucketFetch } from "./copy-object-lock.ts";

/** One stored version of a key (not a delete marker), as ListObjectVersions names it. */
export interface CopyVersion {
  versionId: string;
  size: number;
  etag: string;
  lastModified: Date;
}

/** What the bucket holds under exactly one key: the current entry (a version or a delete marker) and the older versions, newest first. */
export interface CopyVersions {
  current: { versionId: string; deleteMarker: boolean } | null;
  older: CopyVersion[];
}

/** How a copy's written version was found hidden, and the S3 commands that make it current again. */
export interface HiddenCopy {
  /** The older version that was read or found intact. */
  versionId: string;
  /** A delete marker hid it, or a newer version of other bytes did. */
  hiddenBy: "delete marker" | "overwrite";
  /** The delete marker's or the overwriting version's id. */
  currentVersionId: string;
  /** The commands that bring the hidden version back (docs/restore.md). */
  bringBack: string;
}

const tag = (entry: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(entry)?.[1] ?? "";
const unescapeXml = (text: string) =>
  text
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");

/** The versions of exactly `key`; throws an Error with S3's `code` when the bucket refuses (say, no s3:ListBucketVersions). */
export async function listCopyVersions(entry: CopyEntry, key: string): Promise<CopyVersions> {
  const response = await signedBucketFetch(entry)("GET", "", `versions&prefix=${encodeURIComponent(key)}`);
  const xml = await response.text();
  if (!response.ok) throw Object.assign(new Error(`ListObjectVersions answered ${response.status}`), { code: tag(xml, "Code") || undefined });
  let current: CopyVersions["current"] = null;
  const older: CopyVersion[] = [];
  for (const [, kind, body] of xml.matchAll(/<(Version|DeleteMarker)>([\s\S]*?)<\/\1>/g)) {
    if (unescapeXml(tag(body!, "Key")) !== key) continue;
    const versionId = tag(body!, "VersionId");
    if (tag(body!, "IsLatest") === "true") {
      current = { versionId, deleteMarker: kind === "DeleteMarker" };
    } else if (kind === "Version" && versionId && versionId !== "null") {
      older.push({
        versionId,
        size: Number(tag(body!, "Size")),
        etag: unescapeXml(tag(body!, "ETag")).replace(/^"|"$/g, ""),
        lastModified: new Date(tag(body!, "LastModified")),
      });
    }
  }
  older.sort((a, b) => b.lastModified.getTime() - a.lastModified.getTime());
  return { current, older };
}

/** Describes `version` hidden under `current`, with the commands that make it current again. */
export function describeHidden(entry: CopyEntry, key: string, version: string, current: { versionId: string; deleteMarker: boolean }): HiddenCopy {
  const { bucket } = parseCopyUrl("copies", entry.url);
  const bringBack = current.deleteMarker
    ? `aws s3api delete-object --bucket ${bucket} --key ${key} --version-id ${current.versionId}`
    : `aws s3api copy-object --bucket ${bucket} --key ${key} --copy-source "${bucket}/${key}?versionId=${version}"`;
  return { versionId: version, hiddenBy: current.deleteMarker ? "delete marker" : "overwrite", currentVersionId: current.versionId, bringBack };
}

/** The body of one version of `key`; throws an Error with S3's `code` when refused. */
export async function readCopyVersion(entry: CopyEntry, key: string, versionId: string): Promise<ReadableStream<Uint8Array>> {
  const response = await signedBucketFetch(entry)("GET", key, `versionId=${encodeURIComponent(versionId)}`);
  if (!response.ok || !response.body) {
    const code = tag(await response.text(), "Code") || undefined;
    throw Object.assign(new Error(`GetObject of version ${versionId} answered ${response.status}`), { code });
  }
  return response.body;
}
