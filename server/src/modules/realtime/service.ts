import type { OperationProgress, OperationStatus } from "@db/schema";
import type { AppContext } from "../../context";

/** The events browsers receive on /api/ws (spec section 7). */
export type BrowserEvent =
  | { type: "backupProgress"; backupId: string; status: OperationStatus; progress: OperationProgress | null }
  | {
      type: "restoreProgress";
      restoreId: string;
      status: OperationStatus;
      progress: OperationProgress | null;
      error: string | null;
    };

/** Closes every open browser socket of the user, on whichever instance holds it (a session ended). */
export async function endBrowserSessions(ctx: AppContext, userId: string, reason: string) {
  try {
    await ctx.bus.publish({ kind: "browser.disconnect", userId, reason });
  } catch (error) {
    // The tokens are already refused; a socket left open only receives progress events.
    ctx.log.warn("could not close a user's browser sockets", { userId, error });
  }
}

/** Sends an event to every open browser socket of the user, on whichever instance holds it. */
export async function publishToUser(ctx: AppContext, userId: string, event: BrowserEvent) {
  try {
    await ctx.bus.publish({ kind: "browser.event", userId, event });
  } catch (error) {
    // Live updates are a convenience: the state is in the database and the page refetches it.
    ctx.log.warn("could not publish a browser event", { userId, type: event.type, error });
  }
}
