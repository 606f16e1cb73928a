// Backup storage: one interface, a filesystem backend (the embedded default) and an S3 backend.
// Both pass the shared contract suite in server/test/storage/storage-suite.ts.
import { ObjectLockUnsupportedError } from "./errors";
import { FileStorage } from "./file-storage";
import type { ObjectLockMode } from "./s3-object-lock";
import { S3Storage, type S3StorageOptions } from "./s3-storage";
import { ReplicatedStorage, type ReplicaFailure } from "./replicated-storage";
import { parseStorageUrl } from "./storage-url";
import type { Storage } from "./types";

export * from "./errors";
export { FileStorage } from "./file-storage";
export { assertKey, assertPrefix } from "./keys";
export type { ObjectLockMode } from "./s3-object-lock";
export { S3Storage, type S3StorageOptions } from "./s3-storage";
export { ReplicatedStorage, type ReplicaFailure, type RepairReport } from "./replicated-storage";
export { parseStorageUrl } from "./storage-url";
export type { ByteRange, PutOptions, Storage, StoredObject } from "./types";

/**
 * Builds the backend STORAGE_URL names (file:///abs/path or s3://bucket?endpoint=…), wrapped
 * with its STORAGE_REPLICA_URL twin when one is given; throws StorageUrlError for anything else, ObjectLockUnsupportedError for a lock the backend cannot
 * keep. Does not probe the backend: call check() (and S3Storage.checkObjectLock()) for that.
 */
export function createStorage(
  storageUrl: string,
  s3Defaults: Partial<S3StorageOptions> = {},
  objectLock: ObjectLockMode | null = null,
  replica: { url: string | null; onFailure?: (failure: ReplicaFailure) => void } = { url: null },
): Storage {
  const primary = createOneStorage(storageUrl, s3Defaults, objectLock);
  // STORAGE_REPLICA_URL: the same URL forms, the same S3 defaults and the same lock, on both sides.
  return replica.url ? new ReplicatedStorage(primary, createOneStorage(replica.url, s3Defaults, objectLock), replica.onFailure) : primary;
}

function createOneStorage(storageUrl: string, s3Defaults: Partial<S3StorageOptions>, objectLock: ObjectLockMode | null): Storage {
  const target = parseStorageUrl(storageUrl);
  if (target.kind === "file") {
    if (objectLock) throw new ObjectLockUnsupportedError("file");
    return new FileStorage(target.root);
  }
  const { kind: _, ...options } = target;
  // What the URL says wins; the environment's S3 settings (read by config.ts) fill the gaps.
  const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  return new S3Storage({ ...s3Defaults, ...given, ...(objectLock ? { objectLock } : {}) } as S3StorageOptions);
}
