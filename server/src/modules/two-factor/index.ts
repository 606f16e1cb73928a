import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { authGuard } from "../auth/guard";
import { refuseTwoFactorOffWhileProtected } from "../backup-protection/check";
import { refuseLosingLastBreakGlass } from "../organizations/sso-required";
import { requireRecentReauthentication } from "../reauthentication/service";
import { twoFactorAnswers, twoFactorModel } from "./model";
import { disableTwoFactor, enableTwoFactor, refuseTurningOff, regenerateRecoveryCodes, startTwoFactorSetup, twoFactorStatus } from "./service";

/** Two-factor sign-in (TOTP, RFC 6238) of the signed-in user: Profile → Security. */
export const twoFactorController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/auth/two-factor", detail: { tags: ["Auth"], security: [{ bearer: [] }] } })
    .use(authGuard(ctx))
    .get("/", ({ user }) => twoFactorStatus(ctx, user), {
      auth: true,
      response: { 200: twoFactorAnswers.status },
      detail: { summary: "Whether two-factor sign-in is on" },
    })
    .post("/setup", ({ user, body }) => startTwoFactorSetup(ctx, user, body.password), {
      auth: true,
      body: twoFactorModel.setup,
      response: { 200: twoFactorAnswers.setup },
      detail: { summary: "Start turning two-factor sign-in on: a new secret and its QR code" },
    })
    .post("/enable", ({ user, body }) => enableTwoFactor(ctx, user, body.code), {
      auth: true,
      body: twoFactorModel.enable,
      response: { 200: twoFactorAnswers.enabled },
      detail: { summary: "Confirm the secret with a code; answers recovery codes and a new token" },
    })
    .post(
      "/disable",
      async ({ user, session, body }) => {
        refuseTurningOff(ctx, user);
        await refuseLosingLastBreakGlass(ctx.db, user.id);
        await refuseTwoFactorOffWhileProtected(ctx, user.id);
        await requireRecentReauthentication(ctx, user, session, body);
        return disableTwoFactor(ctx, user);
      },
      {
        auth: true,
        body: twoFactorModel.disable,
        response: { 200: twoFactorAnswers.message },
        detail: { summary: "Turn two-factor sign-in off (password and a code)" },
      },
    )
    .post(
      "/recovery-codes",
      async ({ user, session, body }) => {
        await requireRecentReauthentication(ctx, user, session, body);
        return regenerateRecoveryCodes(ctx, user);
      },
      {
        auth: true,
        body: twoFactorModel.recoveryCodes,
        response: { 200: twoFactorAnswers.recoveryCodes },
        detail: {
          summary: "Replace the recovery codes (password and a code, or a token from POST /api/auth/reauthenticate)",
        },
      },
    );
