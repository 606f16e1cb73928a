// How many places hold a backup file: DBVault's storage, plus each copy the agent wrote to the
// customer's own buckets (dbvault-agent copies add).
import type { StatusTone } from "./operation-status";

type Copied = {
  status: string;
  copies: { destination: string; key: string; status: "stored" | "failed" | "missing" | "changed"; error: string | null }[];
};

export type PlacesLook = {
  /** "1 place", "2 places", … */
  label: string;
  /** Green with a copy stored, amber when a copy failed or the check found one gone or changed, grey in one place only. */
  tone: StatusTone;
  /** One line per place, for the tooltip. */
  lines: string[];
};

/** The bucket and prefix of a copy's label (the endpoint and region left to the tooltip's second line). */
export function describeCopyDestination(destination: string): string {
  return destination.split("?")[0]!;
}

/** The places badge of a completed backup; null for any other (it is in no place yet). */
export function describePlaces(backup: Copied): PlacesLook | null {
  if (backup.status !== "completed") return null;
  const copies = backup.copies ?? [];
  const stored = copies.filter((copy) => copy.status === "stored");
  const wrong = copies.filter((copy) => copy.status !== "stored");
  const count = 1 + stored.length;
  const lines = [
    "DBVault storage",
    ...stored.map((copy) => `Your bucket: ${describeCopyDestination(copy.destination)} (${copy.key})`),
    ...wrong.map((copy) => describeWrongCopy(copy)),
  ];
  return { label: `${count} place${count === 1 ? "" : "s"}`, tone: wrong.length > 0 ? "warning" : stored.length > 0 ? "success" : "neutral", lines };
}

/** A copy that is not a place: never written, or found gone or changed by the agent's daily check. */
export function describeWrongCopy(copy: Copied["copies"][number]): string {
  const where = describeCopyDestination(copy.destination);
  if (copy.status === "missing") return `Copy in ${where} is gone: ${copy.error ?? "the check found no such object"}`;
  if (copy.status === "changed") return `Copy in ${where} was changed: ${copy.error ?? "the check found other bytes"}`;
  return `Copy to ${where} failed: ${copy.error ?? "no reason given"}. The agent log says more.`;
}
