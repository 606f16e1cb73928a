// The security e-mail: after a password change, a reset or "sign out everywhere", the account's
// owner hears what happened and which API tokens still act for them (each with its last use), so
// a token a thief made is seen, and revoked, even when the owner kept their tokens.
import type { AppContext } from "../../context";
import { queueMail } from "../mail/outbox";
import { accountApiTokens } from "./api-tokens";

export async function mailSecurityNotice(ctx: AppContext, user: { id: string; email: string }, what: string, revokedTokens: number) {
  try {
    const tokens = await accountApiTokens(ctx.db, user.id);
    const lines = tokens.map(
      (token) =>
        `- ${token.name} (${token.prefix}…): last used ${token.lastUsedAt ? `${token.lastUsedAt.toISOString()} from ${token.lastUsedIp ?? "an unknown address"}` : "never"}`,
    );
    const text = [
      `${what} on your DBVault account (${user.email}). Every signed-in session has ended.`,
      "",
      revokedTokens > 0 ? `${revokedTokens} API token(s) were revoked with it.` : "",
      tokens.length > 0
        ? [
            "These API tokens still act for you:",
            ...lines,
            "",
            `If you do not know one, revoke it now in ${ctx.config.publicUrl}/profile (Security → API tokens).`,
          ].join("\n")
        : "No API token acts for you now.",
      "",
      "If this was not you, reset your password now and turn two-factor sign-in on.",
    ]
      .filter((line, index, all) => line !== "" || all[index - 1] !== "")
      .join("\n");
    await queueMail(ctx, { to: user.email, subject: `DBVault security: ${what.toLowerCase()}`, text });
  } catch (error) {
    ctx.log.error("security mail could not be queued", { userId: user.id, error });
  }
}
