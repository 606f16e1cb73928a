// Trigger Backup waits, with its reason, while the plan's manual backup of the selected database
// is used, rather than answer a click with 429; it opens again by itself when the period ends.
import { useEffect, useState } from "react";
import { nextManualBackupAt } from "../utils/database-selection";

type Backups = Parameters<typeof nextManualBackupAt>[1];
type Plan = Parameters<typeof nextManualBackupAt>[2];

// A timer's longest delay (about 24.8 days); a longer wait is met again on the next render.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** When the next manual backup of `selected` is allowed, or null when it is now. */
export function useManualLimitEnd(selected: string, backups: Backups, plan: Plan): Date | null {
  const [now, setNow] = useState(() => Date.now());
  const next = nextManualBackupAt(selected, backups, plan, now);
  const nextTime = next?.getTime() ?? null;
  useEffect(() => {
    if (nextTime === null) return;
    const timer = setTimeout(() => setNow(Date.now()), Math.min(MAX_TIMER_MS, Math.max(0, nextTime - Date.now()) + 500));
    return () => clearTimeout(timer);
  }, [nextTime]);
  return next;
}
