import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { authGuard } from "../auth/guard";
import { actorOf } from "../audit/service";
import { drillAnswers, drillsModel } from "./model";
import { startDrill } from "./service";

/** Restore drills on demand; the schedule is in /api/settings (drillFrequency), results in the restore list. */
export const drillsController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/drills", detail: { tags: ["Backups"], security: [{ bearer: [] }] } }).use(authGuard(ctx)).post(
    "/",
    async ({ user, organization, body, set }) => {
      set.status = 201;
      return startDrill(ctx, organization.id, body.databaseName, "manual", actorOf(user, organization));
    },
    {
      auth: true,
      body: drillsModel.start,
      response: { 201: drillAnswers.started },
      detail: { summary: "Test-restore a database's latest backup into <name>_dbvault_drill on its agent's server, check it and drop it" },
    },
  );
