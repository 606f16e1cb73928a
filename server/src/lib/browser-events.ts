// Events for the browser sockets open in an organization (/api/ws), sent to whichever server instance holds
// them over the cluster bus; modules/realtime serves the sockets themselves.
import type { OperationProgress, OperationStatus } from "@db/schema";
import type { BusMessage, ClusterBus } from "./cluster-bus";
import type { Logger } from "./logger";

/** What publishing needs: the bus to every instance, and a log for what could not be sent. */
type Publisher = { bus: ClusterBus; log: Logger };

/** The events browsers receive on /api/ws (spec section 7). */
export type BrowserEvent =
  /** `size`: the stored bytes, sent with 'completed' so the row shows them before the list is fetched again. */
  | { type: "backupProgress"; backupId: string; status: OperationStatus; progress: OperationProgress | null; size?: number }
  | {
      type: "restoreProgress";
      restoreId: string;
      status: OperationStatus;
      progress: OperationProgress | null;
      error: string | null;
    }
  /** An agent reported on reading a stored backup back (the row's verification changed). */
  | { type: "backupVerified"; backupId: string; status: "ok" | "failed" | "waiting" };

/** Publishes to browser sockets on every instance; a failure is logged, never thrown. */
async function publishQuietly(ctx: Publisher, message: BusMessage, warning: string, fields: Record<string, unknown>) {
  try {
    await ctx.bus.publish(message);
  } catch (error) {
    ctx.log.warn(warning, { ...fields, error });
  }
}

/**
 * Closes every open browser socket of the user, on whichever instance holds it (a session ended).
 * Best effort: the tokens are already refused; a socket left open only receives progress events.
 */
export async function endBrowserSessions(ctx: Publisher, userId: string, reason: string) {
  await publishQuietly(ctx, { kind: "browser.disconnect", userId, reason }, "could not close a user's browser sockets", { userId });
}

/**
 * Closes a member's browser sockets open in one organization, on whichever instance holds them:
 * called when the member is removed or their role changes, so the next socket is opened (and its
 * events chosen) under what they may do now. Their requests are already refused or re-checked.
 */
export async function endMemberAccess(ctx: Publisher, organizationId: string, userId: string) {
  await publishQuietly(
    ctx,
    { kind: "browser.disconnect", userId, organizationId, reason: "membership changed" },
    "could not close a member's browser sockets",
    {
      userId,
      organizationId,
    },
  );
}

/**
 * Sends an event to every browser socket open in the organization (each member's), on whichever
 * instance holds it. Best effort: live updates are a convenience; the state is in the database and
 * the page refetches it.
 */
export async function publishToOrganization(ctx: Publisher, organizationId: string, event: BrowserEvent) {
  await publishQuietly(ctx, { kind: "browser.event", organizationId, event }, "could not publish a browser event", { organizationId, type: event.type });
}
