import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { authGuard } from "../auth/guard";
import { reauthenticationAnswers, reauthenticationModel } from "./model";
import { reauthenticate } from "./service";

export const reauthenticationController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/auth", detail: { tags: ["Auth"], security: [{ bearer: [] }] } })
    .use(authGuard(ctx))
    .post("/reauthenticate", ({ user, session, body }) => reauthenticate(ctx, user, session, body), {
      auth: true,
      body: reauthenticationModel.reauthenticate,
      response: { 200: reauthenticationAnswers.reauthenticated },
      detail: {
        summary: "Confirm the password (and a code when two-factor sign-in is on) before a security change",
        description:
          "Answers a token stamped for 10 minutes. New recovery codes, turning two-factor sign-in off, changing the e-mail or password and a new API key need such a token, or the `password` (or `currentPassword`) and `code` in their own body; otherwise they answer 403 REAUTHENTICATION_REQUIRED (with `ssoAvailable` when the member may confirm through their organization's provider instead).",
      },
    });
