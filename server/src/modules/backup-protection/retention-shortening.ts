// Whether new retention settings would let any kept backup go earlier than the saved ones would.
// Pure, so the rule is unit tested on its own; check.ts applies it.
import type { RetentionPolicy } from "../retention-rules/policy";

/** The oldest a backup may be and still be kept under a policy, in hours. */
const longestKeptHours = (policy: RetentionPolicy) => (policy.mode === "age" ? policy.hours : policy.limitHours);

/**
 * True when `to` could delete a backup that `from` would still keep. Age keeps everything younger
 * than its hours, so an age policy at least as long as the old one's longest keeps all it kept;
 * GFS thins what age kept whole, so age to GFS always shortens; GFS to GFS shortens when any count
 * or the plan's limit goes down.
 */
export function shortensRetention(from: RetentionPolicy, to: RetentionPolicy): boolean {
  if (to.mode === "age") return to.hours < longestKeptHours(from);
  if (from.mode === "age") return true;
  return to.daily < from.daily || to.weekly < from.weekly || to.monthly < from.monthly || to.limitHours < from.limitHours;
}
