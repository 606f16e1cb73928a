// Which module reacts to which app event (lib/event-bus.ts), in one place: the modules that emit
// them (admin, settings, agents) must not import the modules that react.
import type { AppContext } from "./context";
import { discardAccountBackupData } from "./modules/backups/deletion";
import { failWorkOfRemovedAgent } from "./modules/restores/removed-agent";

/** Registers every event handler of the app on `ctx.events`; once per context. */
export function subscribeToEvents(ctx: AppContext) {
  ctx.events.on("userDeleted", ({ userId }) => discardAccountBackupData(ctx, userId));
  ctx.events.on("organizationDeleted", ({ organizationId }) => discardAccountBackupData(ctx, organizationId));
  ctx.events.on("agentRemoving", ({ agentId, reason }) => failWorkOfRemovedAgent(ctx, agentId, reason));
}
