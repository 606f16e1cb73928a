import type { Hash } from "node:crypto";

// SHA-256 of a whole backup file, fed part by part while parts arrive in order on this instance.
// When they do not (a retry on another instance, a restart), completion re-reads the stored parts.
export const runningHashes = new Map<string, { nextPart: number; hash: Hash }>();
