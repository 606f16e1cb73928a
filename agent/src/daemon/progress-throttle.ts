import type { Progress } from "../../../protocol/agent-protocol";

/** Passes on at most one progress report per interval (the latest), plus every final 100 %. */
export function throttleProgress(report: (progress: Progress) => void, intervalMs = 500) {
  let last = 0;
  return (progress: Progress) => {
    const now = Date.now();
    if (now - last < intervalMs && progress.percentage < 100) return;
    last = now;
    report(progress);
  };
}
