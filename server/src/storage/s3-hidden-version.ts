// A stored file hidden in a locked bucket: whoever holds the server's S3 keys can put a delete
// marker on it, or other bytes over it (a newer version). Object Lock keeps the version DBVault
// wrote, and this finds it, by the size and SHA-256 recorded when it was written, so that it is
// served by its version id. An overwrite of exactly the recorded size is told from DBVault's own
// rewrite (a rewrapped header makes a new version of the same size, and records its new SHA-256)
// only by reading it: the current version is hashed when older versions of that size exist.
import type { S3Http } from "./s3-http";

/** One entry of ListObjectVersions for exactly one key. */
type KeyVersion = { versionId: string; size: number; latest: boolean; deleteMarker: boolean };

/** What the bucket holds of one stored file against what was recorded: the version to serve instead of the current one. */
export type HiddenVersionLookup = { versionId: string } | null;

/** Hashes kept of versions already read (a version's bytes never change): at most this many. */
const HASHES_KEPT = 10_000;

export class S3HiddenVersions {
  /** SHA-256 (hex) of versions read, by `rawKey versionId`. */
  private readonly hashes = new Map<string, string>();

  constructor(private readonly http: S3Http) {}

  /**
   * The version of `rawKey` to serve instead of the current one, when the current one is not the
   * file recorded (gone behind a delete marker, another size, or, with `sha256`, other bytes):
   * the newest older version with the recorded SHA-256 (or, without one, the recorded size).
   * Null when the current version is the recorded file, or no older version is.
   */
  async find(rawKey: string, expected: { size: number; sha256?: string | null }): Promise<HiddenVersionLookup> {
    const versions = await this.versions(rawKey);
    const current = versions.find((version) => version.latest);
    const older = versions.filter((version) => !version.latest && !version.deleteMarker && version.size === expected.size && version.versionId !== "null");
    if (older.length === 0) return null;
    const currentIsRecorded = current && !current.deleteMarker && current.size === expected.size;
    if (currentIsRecorded && (!expected.sha256 || (await this.sha256(rawKey, current.versionId)) === expected.sha256)) return null;
    if (!expected.sha256) return { versionId: older[0]!.versionId };
    for (const version of older) {
      if ((await this.sha256(rawKey, version.versionId)) === expected.sha256) return { versionId: version.versionId };
    }
    // None holds the recorded bytes: the newest of the recorded size, as without a checksum (the
    // agent's own check of the file then says what is wrong with it).
    return currentIsRecorded ? null : { versionId: older[0]!.versionId };
  }

  /** Every version and delete marker of exactly `rawKey`, newest first (as S3 lists them). */
  private async versions(rawKey: string): Promise<KeyVersion[]> {
    const xml = await this.http.request("GET", "", { versions: "", prefix: rawKey });
    const found: KeyVersion[] = [];
    for (const [, kind, entry] of xml.matchAll(/<(Version|DeleteMarker)>([\s\S]*?)<\/\1>/g)) {
      if (unescapeXml(/<Key>([^<]*)<\/Key>/.exec(entry!)?.[1] ?? "") !== rawKey) continue;
      found.push({
        versionId: /<VersionId>([^<]*)<\/VersionId>/.exec(entry!)?.[1] ?? "null",
        size: Number(/<Size>(\d+)<\/Size>/.exec(entry!)?.[1] ?? -1),
        latest: /<IsLatest>true<\/IsLatest>/.test(entry!),
        deleteMarker: kind === "DeleteMarker",
      });
    }
    return found;
  }

  /** The SHA-256 of one version's bytes, read whole once. */
  private async sha256(rawKey: string, versionId: string): Promise<string> {
    const id = `${rawKey} ${versionId}`;
    const known = this.hashes.get(id);
    if (known) return known;
    const response = await this.http.send("GET", rawKey, { versionId });
    const hash = new Bun.CryptoHasher("sha256");
    for await (const chunk of response.body!) hash.update(chunk);
    const sha256 = hash.digest("hex");
    if (this.hashes.size >= HASHES_KEPT) this.hashes.delete(this.hashes.keys().next().value!);
    this.hashes.set(id, sha256);
    return sha256;
  }
}

function unescapeXml(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/&(lt|gt|quot|apos|amp);/g, (_, name: string) => ({ lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" })[name]!);
}
