// The MongoDB version this server impersonates, and what depends on it. Clients branch on the
// version (mongorestore sends `bypassEmptyTsReplacement` only to servers that know it), so the
// server must behave like that version too: an older one refuses the field as unknown
// (protocol/mongodb-features.ts holds that rule, shared with the agent).

/** A version as major, minor and patch numbers ("7.0.14" → [7, 0, 14]). */
export type VersionParts = [number, number, number];

/** Parses "major.minor.patch"; throws for anything else (a test asked for a version that cannot be). */
export function parseVersion(version: string): VersionParts {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!match) throw new Error(`not a MongoDB version: '${version}' (expected major.minor.patch)`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

/** "7.0" for "7.0.14": what featureCompatibilityVersion reports. */
export function describeFeatureCompatibility(version: string): string {
  return version.split(".").slice(0, 2).join(".");
}
