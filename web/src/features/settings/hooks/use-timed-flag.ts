import { useCallback, useEffect, useState } from "react";

/** A flag that turns itself off `durationMs` after the last raise (e.g. 'Saved!' for 3 s). */
export function useTimedFlag(durationMs: number): [boolean, () => void, () => void] {
  const [raisedAt, setRaisedAt] = useState<number | null>(null);
  useEffect(() => {
    if (raisedAt === null) return;
    const timer = setTimeout(() => setRaisedAt(null), durationMs);
    return () => clearTimeout(timer);
  }, [raisedAt, durationMs]);
  const raise = useCallback(() => setRaisedAt(Date.now()), []);
  const clear = useCallback(() => setRaisedAt(null), []);
  return [raisedAt !== null, raise, clear];
}
