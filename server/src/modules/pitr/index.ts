import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { authGuard } from "../auth/guard";
import { pitrAnswers, pitrModel, sliceFileAnswers } from "./model";
import { getTimeline } from "./service";
import { downloadSliceResponse } from "./slice-download";
import { findUserSlice, listUserSlices, sliceArchiveResponse } from "./user-slices";

/** Point-in-time recovery as the owner sees it; agents upload slices through agent-link. */
export const pitrController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/pitr", detail: { tags: ["Backups"], security: [{ bearer: [] }] } })
    .use(authGuard(ctx))
    .get("/databases/:databaseId/timeline", ({ organization, params }) => getTimeline(ctx, organization.id, params.databaseId), {
      auth: true,
      params: pitrModel.databaseParams,
      response: { 200: pitrAnswers.timeline },
      detail: { summary: "The oplog time a database's shipped slices cover, and the gaps between" },
    })
    .get("/databases/:databaseId/slices", ({ organization, params, query }) => listUserSlices(ctx, organization.id, params.databaseId, query), {
      auth: true,
      params: pitrModel.databaseParams,
      query: pitrModel.sliceQuery,
      response: { 200: pitrAnswers.sliceList },
      detail: { summary: "A database's stored oplog slices holding time in [from, to], oldest first, a page at a time (for an offline restore)" },
    })
    .get("/databases/:databaseId/slices/archive", ({ organization, params, query }) => sliceArchiveResponse(ctx, organization.id, params.databaseId, query), {
      auth: true,
      params: pitrModel.databaseParams,
      query: pitrModel.sliceRange,
      detail: {
        summary:
          "Download the slices holding time in [from, to] as one zip of their sealed files: unzipped, the folder `dbvault-agent restore --oplog DIR` takes",
        responses: sliceFileAnswers.archive,
      },
    })
    .get(
      "/databases/:databaseId/slices/:sliceId/download",
      async ({ organization, params, request }) =>
        downloadSliceResponse(ctx, await findUserSlice(ctx, organization.id, params.databaseId, params.sliceId), request.headers.get("range")),
      {
        auth: true,
        params: pitrModel.userSliceParams,
        detail: {
          summary: "Download one sealed oplog slice as stored (ranges supported); `dbvault-agent restore --oplog DIR` takes a folder of them",
          responses: sliceFileAnswers.slice,
        },
      },
    );
