import { InvalidKeyError, RangeNotSatisfiableError } from "./errors";
import type { ByteRange } from "./types";

// One rule for every backend, strict enough that a key can never leave the filesystem root: no
// "..", no absolute paths, no empty segments, no NUL or backslash. A segment may not start with a
// dot, which also keeps hidden files and the filesystem backend's own `.tmp` out of the key space.
const SEGMENT = /^[A-Za-z0-9_=@+-][A-Za-z0-9._=@+-]*$/;
const MAX_KEY_LENGTH = 1024; // S3's limit
const MAX_SEGMENT_LENGTH = 255; // NAME_MAX of common filesystems

/** Checks a key; throws InvalidKeyError unless it is `seg/seg/…` of letters, digits and `._-=@+` (no leading dot). */
export function assertKey(key: string): void {
  if (typeof key !== "string" || key.length === 0) throw new InvalidKeyError(String(key), "empty");
  if (key.length > MAX_KEY_LENGTH) throw new InvalidKeyError(key.slice(0, 64), `longer than ${MAX_KEY_LENGTH} characters`);
  if (key.startsWith("/")) throw new InvalidKeyError(key, "absolute paths are not allowed");
  for (const segment of key.split("/")) {
    if (segment.length === 0) throw new InvalidKeyError(key, "empty path segment");
    if (segment.length > MAX_SEGMENT_LENGTH) throw new InvalidKeyError(key, `segment longer than ${MAX_SEGMENT_LENGTH}`);
    if (!SEGMENT.test(segment)) throw new InvalidKeyError(key, "segments may use only A-Z a-z 0-9 . _ - = @ + and may not start with a dot");
  }
}

/** Whether a file name can be one segment of a key. */
export function isKeySegment(name: string): boolean {
  return name.length <= MAX_SEGMENT_LENGTH && SEGMENT.test(name);
}

/** Checks a prefix: empty, a key, or a key followed by `/`; throws InvalidKeyError otherwise. */
export function assertPrefix(prefix: string): void {
  if (prefix === "") return;
  assertKey(prefix.endsWith("/") ? prefix.slice(0, -1) : prefix);
}

/** Clamps an inclusive range to an object of `size` bytes; throws RangeNotSatisfiableError when it starts past the end or is malformed. */
export function resolveRange(key: string, range: ByteRange, size: number): ByteRange {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start || start >= size) {
    throw new RangeNotSatisfiableError(key, range, size);
  }
  return { start, end: Math.min(end, size - 1) };
}
