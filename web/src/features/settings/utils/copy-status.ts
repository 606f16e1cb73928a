// How a backup copy in the user's own bucket reads in Settings → Databases → Copies.
import { formatBytes } from "@protocol/format";
import { formatDateTime } from "../../../lib/format-date";

type CopyLike = {
  status: "stored" | "failed" | "missing" | "changed";
  size: number | null;
  checkedAt: string | null;
  error: string | null;
  lockedUntil: string | null;
};
export type CopyStatusLook = {
  label: string;
  tone: "success" | "danger" | "warning";
  checked: string;
  size: string;
  locked: string | null;
  note: string | null;
};

const LABELS = {
  stored: { label: "Stored", tone: "success" },
  failed: { label: "Not written", tone: "warning" },
  missing: { label: "Missing", tone: "danger" },
  changed: { label: "Changed", tone: "danger" },
} as const;

/** The status badge, the "last checked", size and lock texts, and what went wrong (or why the bucket could not be checked). */
export function describeCopyStatus(copy: CopyLike): CopyStatusLook {
  return {
    ...LABELS[copy.status],
    checked: copy.checkedAt ? `Checked ${formatDateTime(copy.checkedAt)}` : "Never checked",
    size: copy.size === null ? "—" : formatBytes(copy.size),
    locked: copy.lockedUntil ? `Locked until ${formatDateTime(copy.lockedUntil)}` : null,
    note: copy.error,
  };
}

/** The bucket and prefix of a copy's label, without its endpoint and region. */
export const describeBucket = (destination: string) => destination.split("?")[0]!;
