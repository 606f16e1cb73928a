// Which module reacts to which app event (lib/event-bus.ts), in one place: the modules that emit
// them (admin, settings, agents, agent-jobs) must not import the modules that react.
import type { AppContext } from "./context";
import { discardAccountBackupData } from "./modules/backups/deletion";
import { failWorkOfRemovedAgent } from "./modules/restores/removed-agent";
import { failBackup } from "./modules/backups/service";
import { failRestore } from "./modules/restores/service";

/** Registers every event handler of the app on `ctx.events`; once per context. */
export function subscribeToEvents(ctx: AppContext) {
  ctx.events.on("userDeleted", ({ userId }) => discardAccountBackupData(ctx, userId));
  ctx.events.on("organizationDeleted", ({ organizationId }) => discardAccountBackupData(ctx, organizationId));
  ctx.events.on("agentRemoving", ({ agentId, reason }) => failWorkOfRemovedAgent(ctx, agentId, reason));
  // The ledger's sweep decides a job is lost; the subject's owner fails it and tells the user.
  ctx.events.on("agentJobExpired", async ({ kind, subjectId, reason }) => {
    if (kind === "backup") await failBackup(ctx, subjectId, reason);
    else await failRestore(ctx, subjectId, reason);
  });
}
