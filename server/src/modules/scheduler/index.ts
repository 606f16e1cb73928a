import type { AppContext } from "../../context";
import { runMaintenance } from "./service";

export const MAINTENANCE_INTERVAL_MS = 15_000;

/** Runs the scheduler, retention and sweepers every 15 s until stopped, and sends due webhook and mail retries. */
export function startBackgroundJobs(ctx: AppContext, intervalMs = MAINTENANCE_INTERVAL_MS) {
  let running = false;
  const tick = async () => {
    // Retries that fell due (and, at start-up, deliveries and mail left by the last run); never waits.
    ctx.webhooks.kick();
    ctx.mail.kick();
    if (running) return; // a slow tick is never overlapped by the next
    running = true;
    try {
      await runMaintenance(ctx);
      ctx.log.debug("background jobs pass done");
    } catch (error) {
      ctx.log.error("background jobs failed", { error });
    } finally {
      running = false;
    }
  };
  const timer = setInterval(tick, intervalMs);
  void tick();
  return () => clearInterval(timer);
}
