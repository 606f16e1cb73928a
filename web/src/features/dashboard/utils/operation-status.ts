// How backup and restore statuses read and look (spec 2 and 4).

export type StatusTone = "success" | "danger" | "warning" | "neutral";
export type StatusBadgeLook = { label: string; tone: StatusTone; spinning: boolean };

const KNOWN: Record<string, StatusBadgeLook> = {
  completed: { label: "Completed", tone: "success", spinning: false },
  failed: { label: "Failed", tone: "danger", spinning: false },
  pending: { label: "Pending", tone: "warning", spinning: true },
  "in-progress": { label: "In Progress", tone: "warning", spinning: true },
};

/** Green completed, red failed, yellow with a spinner while running; anything else capitalised, neutral. */
export function describeStatus(status: string): StatusBadgeLook {
  const known = KNOWN[status];
  if (known) return known;
  return { label: status ? status.charAt(0).toUpperCase() + status.slice(1) : "Unknown", tone: "neutral", spinning: false };
}

/** Whether an operation is still running (pending or in progress). */
export function isRunning(status: string): boolean {
  return status === "pending" || status === "in-progress";
}

export const DETAILS_MAX_LENGTH = 50;

/** The Details column of the restore history: the error cut to 50 characters, or the status in words. */
export function describeRestoreDetails(restore: { status: string; error?: string | null }): string {
  if (restore.error) {
    return restore.error.length > DETAILS_MAX_LENGTH ? `${restore.error.slice(0, DETAILS_MAX_LENGTH)}...` : restore.error;
  }
  switch (restore.status) {
    case "completed":
      return "Restore completed successfully";
    case "failed":
      return "Restore failed";
    case "pending":
      return "Restore in progress";
    default:
      return "Waiting for agent";
  }
}

/** Agent status words and colours: active Online (green), inactive Inactive (yellow), else Offline (red). */
export function describeAgentStatus(status: string): { label: string; tone: StatusTone } {
  if (status === "active") return { label: "Online", tone: "success" };
  if (status === "inactive") return { label: "Inactive", tone: "warning" };
  return { label: "Offline", tone: "danger" };
}

/**
 * Lets an operation's live events through until its first finished status and drops any after
 * it: a progress event published a moment before the completion can arrive after it (they travel
 * different paths), and must not bring back a progress bar that nothing would clear.
 */
export function createFinishedFilter(): (id: string, status: string) => boolean {
  const finished = new Set<string>();
  return (id, status) => {
    if (finished.has(id)) return false;
    if (!isRunning(status)) finished.add(id);
    return true;
  };
}
