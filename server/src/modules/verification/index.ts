import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { authGuard } from "../auth/guard";
import { backupsModel } from "../backups/model";
import { findOwnBackup } from "../backups/service";
import { verificationAnswers } from "./model";
import { requestVerification } from "./service";

/** Asking again for a backup to be read back (/api/backups/:id/verify). */
export const verificationController = (ctx: AppContext) => {
  return new Elysia({ prefix: "/api/backups", detail: { tags: ["Backups"], security: [{ bearer: [] }] } }).use(authGuard(ctx)).post(
    "/:id/verify",
    async ({ organization, params, set }) => {
      set.status = 202;
      return requestVerification(ctx, await findOwnBackup(ctx, organization.id, params.id));
    },
    {
      auth: true,
      params: backupsModel.idParams,
      response: { 202: verificationAnswers.verificationRequested },
      detail: {
        summary:
          "Have the database's agent (a restore agent for a write-only agent's backup) read the stored backup back again (download, decrypt, parse, count); the result arrives as verifiedAt/verification",
      },
    },
  );
};
