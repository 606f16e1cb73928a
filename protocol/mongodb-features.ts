// What a MongoDB server of a given version accepts, where clients must branch on it: the agent's
// restore and the project's MongoDB test server (which must refuse what that version refuses)
// follow the same rule from here.

/**
 * Whether insert and update accept `bypassEmptyTsReplacement` (SERVER-88750): 8.0 and later, and
 * the 7.0.13, 6.0.17 and 5.0.29 patch releases onwards; no other minor release received it.
 * `version` is "major.minor.patch" (anything unreadable counts as too old); never throws.
 */
export function acceptsBypassEmptyTsReplacement(version: string): boolean {
  const [major = 0, minor = 0, patch = 0] = version.split(".").map((part) => Number.parseInt(part, 10) || 0);
  if (major >= 8) return true;
  if (minor !== 0) return false;
  const firstPatch: Record<number, number> = { 7: 13, 6: 17, 5: 29 };
  return firstPatch[major] !== undefined && patch >= firstPatch[major];
}
