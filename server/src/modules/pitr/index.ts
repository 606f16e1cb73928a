import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { authGuard } from "../auth/guard";
import { pitrAnswers, pitrModel } from "./model";
import { getTimeline } from "./service";

/** Point-in-time recovery as the owner sees it; agents upload slices through agent-link. */
export const pitrController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/pitr", detail: { tags: ["Backups"], security: [{ bearer: [] }] } })
    .use(authGuard(ctx))
    .get("/databases/:databaseId/timeline", ({ organization, params }) => getTimeline(ctx, organization.id, params.databaseId), {
      auth: true,
      params: pitrModel.databaseParams,
      response: { 200: pitrAnswers.timeline },
      detail: { summary: "The oplog time a database's shipped slices cover, and the gaps between" },
    });
