// S3 Object Lock (STORAGE_OBJECT_LOCK): objects written with a retention nobody, not even the
// holder of the bucket's credentials, can shorten (COMPLIANCE) or get past without a special
// permission (GOVERNANCE); the bucket check at start-up; deletes of versions.
//
// A locked bucket is versioned, and in a versioned bucket a plain DELETE removes nothing: it adds
// a delete marker and the bytes stay stored (and billed). So with a lock on, DBVault deletes each
// version by id; a version still under retention answers AccessDenied and stays (ObjectLockedError).
import { ObjectLockedError, StorageUnavailableError } from "./errors";
import { type S3Http, S3RequestError } from "./s3-http";

export type ObjectLockMode = "compliance" | "governance";

export type ObjectVersion = { rawKey: string; versionId: string };

const md5 = (body: string | Uint8Array) => new Bun.CryptoHasher("md5").update(body).digest("base64");

export class S3ObjectLock {
  constructor(
    private readonly http: S3Http,
    readonly mode: ObjectLockMode,
  ) {}

  /** PutObject with the lock's retention (S3 wants Content-MD5 on any put carrying one). */
  async put(rawKey: string, body: Uint8Array<ArrayBuffer>, retainUntil: Date, contentDisposition?: string): Promise<void> {
    const headers: Record<string, string> = {
      "Content-MD5": md5(body),
      "x-amz-object-lock-mode": this.mode.toUpperCase(),
      "x-amz-object-lock-retain-until-date": retainUntil.toISOString(),
    };
    if (contentDisposition) headers["Content-Disposition"] = contentDisposition;
    await this.http.request("PUT", rawKey, {}, { headers, body });
  }

  /**
   * Sets the current version's retention to `until` unless it already reaches that far: a lock
   * only ever grows here (S3 refuses to shorten a COMPLIANCE one anyway). A multipart upload gets
   * its lock this way once completed, and a backup promoted by GFS its longer one.
   */
  async extend(rawKey: string, until: Date): Promise<void> {
    const head = await this.http.send("HEAD", rawKey, {});
    const current = head.headers.get("x-amz-object-lock-retain-until-date");
    if (current && new Date(current).getTime() >= until.getTime()) return;
    const xml = `<Retention xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Mode>${this.mode.toUpperCase()}</Mode><RetainUntilDate>${until.toISOString()}</RetainUntilDate></Retention>`;
    await this.http.request("PUT", rawKey, { retention: "" }, { headers: { "Content-MD5": md5(xml) }, body: xml });
  }

  /** Every version and delete marker under the prefix (ListObjectVersions, across pages). */
  async versions(rawPrefix: string): Promise<ObjectVersion[]> {
    const found: ObjectVersion[] = [];
    let markers: Record<string, string> = {};
    while (true) {
      const xml = await this.http.request("GET", "", { versions: "", prefix: rawPrefix, ...markers });
      for (const [, entry] of xml.matchAll(/<(?:Version|DeleteMarker)>([\s\S]*?)<\/(?:Version|DeleteMarker)>/g)) {
        const rawKey = unescapeXml(/<Key>([^<]*)<\/Key>/.exec(entry!)?.[1] ?? "");
        const versionId = /<VersionId>([^<]*)<\/VersionId>/.exec(entry!)?.[1] ?? "null";
        found.push({ rawKey, versionId });
      }
      const keyMarker = /<NextKeyMarker>([^<]*)<\/NextKeyMarker>/.exec(xml)?.[1];
      if (!/<IsTruncated>true<\/IsTruncated>/.test(xml) || !keyMarker) break;
      const versionMarker = /<NextVersionIdMarker>([^<]*)<\/NextVersionIdMarker>/.exec(xml)?.[1];
      markers = { "key-marker": unescapeXml(keyMarker), ...(versionMarker ? { "version-id-marker": versionMarker } : {}) };
    }
    return found;
  }

  /** Deletes one version for good; ObjectLockedError while its retention lasts. */
  async deleteVersion(version: ObjectVersion, label: string): Promise<void> {
    try {
      await this.http.request("DELETE", version.rawKey, { versionId: version.versionId });
    } catch (error) {
      if (error instanceof S3RequestError && error.code === "AccessDenied") throw new ObjectLockedError(label);
      if (error instanceof S3RequestError && (error.code === "NoSuchVersion" || error.code === "NoSuchKey")) return;
      throw new StorageUnavailableError(`S3 request for ${JSON.stringify(label)} failed: ${(error as Error).message}`, error);
    }
  }

  /** What the bucket lacks for the lock to hold: versioning, Object Lock; empty when it has both. */
  async missingBucketSettings(): Promise<string[]> {
    const missing: string[] = [];
    const versioning = await this.http.request("GET", "", { versioning: "" });
    if (!/<Status>Enabled<\/Status>/.test(versioning)) missing.push("versioning");
    const lock = await this.http.request("GET", "", { "object-lock": "" }).catch((error) => {
      if (error instanceof S3RequestError && error.code === "ObjectLockConfigurationNotFoundError") return "";
      throw error;
    });
    if (!/<ObjectLockEnabled>Enabled<\/ObjectLockEnabled>/.test(lock)) missing.push("Object Lock");
    return missing;
  }
}

function unescapeXml(text: string): string {
  return text.replace(/&(lt|gt|quot|apos|amp);/g, (_, name: string) => ({ lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" })[name]!);
}
