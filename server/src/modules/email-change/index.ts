import { Elysia, t } from "elysia";
import type { AppContext } from "../../context";
import { messageAnswer } from "../../lib/schema";
import { confirmEmailChange, undoEmailChange } from "./service";

const linkParams = t.Object({ token: t.String({ minLength: 1, maxLength: 200, error: "Invalid link" }) });

/** The links mailed by an e-mail change; public, the token is the proof. */
export const emailChangeController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/auth/email-change", detail: { tags: ["Auth"] } })
    .post("/confirm/:token", ({ params }) => confirmEmailChange(ctx, params.token), {
      params: linkParams,
      response: { 200: messageAnswer },
      detail: { summary: "Confirm a new e-mail with the link mailed to it (it takes effect now)" },
    })
    .post("/undo/:token", ({ params }) => undoEmailChange(ctx, params.token), {
      params: linkParams,
      response: { 200: messageAnswer },
      detail: { summary: "Undo an e-mail change with the link mailed to the old address (7 days); signs out every session" },
    });
