// The onboarding checklist's "Install the agent" step: its install command carries a mark naming
// the user (?for=<user id>.<keyed hash>), which install.sh passes on to the binary's download, so
// the step turns green once the script was fetched and the agent downloaded, before setup. The
// mark grants nothing: forged or copied, it can only tick another user's checklist step, and the
// keyed hash stops even that.
import { eq } from "drizzle-orm";
import { users } from "@db/schema";
import type { AppContext } from "../../context";

const MARK = /^([0-9a-f]{24})\.([0-9a-f]{16})$/;

const signatureOf = (ctx: AppContext, userId: string) => ctx.apiKeys.hash(`agent-install-mark:${userId}`).slice(0, 16);

/** The mark of this user's install command. */
export function installMarkOf(ctx: AppContext, userId: string): string {
  return `${userId}.${signatureOf(ctx, userId)}`;
}

/** The user a mark names, or null when it is not one this server made. */
function userOfMark(ctx: AppContext, mark: string | undefined): string | null {
  const match = mark ? MARK.exec(mark) : null;
  return match && match[2] === signatureOf(ctx, match[1]!) ? match[1]! : null;
}

/** A valid mark, for the download URL written into install.sh; null otherwise. */
export function checkedMark(ctx: AppContext, mark: string | undefined): string | null {
  return userOfMark(ctx, mark) ? mark! : null;
}

/** Records that a marked install.sh was fetched, or the agent downloaded; an unknown mark changes nothing. */
export async function recordInstallStep(ctx: AppContext, mark: string | undefined, step: "script" | "download") {
  const userId = userOfMark(ctx, mark);
  if (!userId) return;
  const column = step === "script" ? { agentScriptFetchedAt: ctx.now() } : { agentDownloadedAt: ctx.now() };
  await ctx.db.update(users).set(column).where(eq(users.id, userId));
}

/** Where the user's install got (for the dashboard's checklist), and the mark its command carries. */
export async function readInstallProgress(ctx: AppContext, userId: string) {
  const [row] = await ctx.db.select({ script: users.agentScriptFetchedAt, download: users.agentDownloadedAt }).from(users).where(eq(users.id, userId));
  return {
    mark: installMarkOf(ctx, userId),
    scriptFetchedAt: row?.script?.toISOString() ?? null,
    downloadedAt: row?.download?.toISOString() ?? null,
  };
}
