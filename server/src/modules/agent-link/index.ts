import { Elysia } from "elysia";
import type { AgentRow } from "@db/schema";
import {
  AddDatabaseRequest,
  AgentKeyIds,
  BackupKeysAnswer,
  CopiesToCheckAnswer,
  CopyLockFloorAnswer,
  CopyCheckAnswer,
  CopyCheckReport,
  CopyRemovalAnswer,
  CopyRemovalRequest,
  HeaderReplaced,
  AGENT_REMOVED_CLOSE_CODE,
  AGENT_REMOVED_MESSAGE,
  AgentHeaders,
  CompleteUploadRequest,
  FailRequest,
  PointInTimePlanPage,
  PointInTimePlanQuery,
  RegisterRequest,
} from "@protocol/agent-protocol";
import { SliceUploadQuery } from "@protocol/pitr";
import { AgentStatusAnswer, BackupNowRequest, OperatorBackup, OperatorBackupsAnswer, OperatorBackupsQuery } from "@protocol/operator";
import type { AppContext } from "../../context";
import { AppError } from "../../lib/errors";
import { answerAppError } from "../../lib/http";
import { fileAnswer } from "../../lib/schema";
import { publicErrorOf } from "../../lib/public-error";
import { declareDatabases } from "../databases/declared";
import { agentAnswers, agentsModel } from "../agents/model";
import { registerAgent } from "../agents/service";
import { downloadBackupResponse } from "../stored-files/download";
import { encryptedFileAnswer } from "../backups/model";
import { allowCopyRemoval, copyLockFloor } from "../copies/service";
import { listCopiesToCheck, recordCopyChecks } from "../copies/checks";
import { failBackup, findOwnBackup } from "../backups/service";
import { receiveSlice } from "../pitr/service";
import { pointInTimePlanPage } from "../pitr/agent-plan";
import { pitrAnswers, pitrModel } from "../pitr/model";
import { downloadSliceResponse, findSliceForAgent } from "../pitr/slice-download";
import { completeUpload, getUploadStatus, receivePart } from "../uploads/service";
import { authenticateAgent, authenticateApiKey, keyHolderName, refuseNewAgentFor } from "./agent-auth";
import { findBackupForAgent } from "./agent-backups";
import { headerResponse, listRewrappableBackups, recordRotatedKeyIds, replaceHeaderFromRequest } from "./agent-key-rotation";
import { createAgentGateway } from "./gateway";
import { backUpNow, describeAgentStatus, listAgentBackups } from "./operator";

/**
 * Everything agents talk to: registration (the account's API key), uploads and downloads
 * (`/api/agent/*`, the agent's own id and token) and their socket (`/api/agents/ws`), whose
 * messages the gateway hands to the feature they concern. It sits above the features: none of them imports it; they reach an
 * agent through lib/agent-commands.ts.
 */
export const agentLinkController = (ctx: AppContext) => {
  const gateway = createAgentGateway(ctx);
  // What each socket's upgrade request authenticated as; "removed" for a removed agent, which
  // is let in only to be told so (AGENT_REMOVED_CLOSE_CODE) and stop reconnecting.
  const socketAgents = new WeakMap<Request, AgentRow | "removed">();

  const agentApi = new Elysia({ prefix: "/api/agent", detail: { tags: ["Agent protocol"] } })
    .post(
      "/register",
      async ({ headers, body, set }) => {
        const { organization, founder } = await authenticateApiKey(ctx, headers.authorization);
        refuseNewAgentFor(founder);
        set.status = 201;
        // An agent set up before (setup --force) sends its own credentials: they let it register again.
        return registerAgent(ctx, organization, body, { agentId: headers[AgentHeaders.agentId], agentToken: headers[AgentHeaders.agentToken] });
      },
      { body: RegisterRequest, response: { 201: agentAnswers.registered }, detail: { summary: "Register an agent and its database names (API key)" } },
    )
    .get("/check-key", async ({ headers }) => ({ name: keyHolderName(await authenticateApiKey(ctx, headers.authorization)) }), {
      response: { 200: agentAnswers.account },
      detail: { summary: "Check an API key (setup asks right after it is typed); answers the account's name" },
    })
    .post(
      "/databases",
      async ({ headers, body }) => {
        const { organization, agent } = await authenticateAgent(ctx, headers);
        return {
          databases: await declareDatabases(ctx, organization, agent.id, [body.name], {
            exact: false,
            ...(body.pitrAccess ? { pitrAccess: new Map([[body.name, body.pitrAccess]]) } : {}),
          }),
        };
      },
      { body: AddDatabaseRequest, response: { 200: agentAnswers.databases }, detail: { summary: "Add a database name (dbvault-agent db add)" } },
    )
    .get("/backups/:backupId/upload", async ({ headers, params }) => getUploadStatus(ctx, (await authenticateAgent(ctx, headers)).agent, params.backupId), {
      params: agentsModel.backupParams,
      response: { 200: agentAnswers.uploadStatus },
      detail: { summary: "Parts received so far (resume)" },
    })
    .put(
      "/backups/:backupId/parts/:partNumber",
      async ({ headers, params, request }) => {
        const { agent } = await authenticateAgent(ctx, headers);
        // Numeric also reads "1e3" and "0x10"; a part number is written in plain decimal.
        if (!/\/parts\/(0|[1-9][0-9]*)$/.test(new URL(request.url).pathname)) {
          throw new AppError(400, "BAD_REQUEST", "partNumber must be a whole number from 0, in decimal");
        }
        const length = request.headers.get("content-length");
        const { backupId, partNumber } = params;
        // The agent holds the body back until told to send it (see AgentHeaders.awaitGo).
        const sayGo =
          request.headers.get(AgentHeaders.awaitGo) === "1"
            ? () =>
                gateway
                  .deliver(agent.id, { type: "upload.go", backupId, partNumber })
                  .catch((error) => ctx.log.warn("could not say go to an agent", { agentId: agent.id, error }))
            : undefined;
        return receivePart(ctx, agent, backupId, partNumber, request.body, length === null ? null : Number(length), sayGo);
      },
      // The raw body is streamed to storage: no parsing.
      {
        params: agentsModel.partParams,
        parse: "none",
        response: { 200: agentAnswers.partStored },
        detail: { summary: "Upload one part of the encrypted file" },
      },
    )
    .put(
      "/pitr/slices",
      async ({ headers, query, request }) => {
        const { agent } = await authenticateAgent(ctx, headers);
        const length = request.headers.get("content-length");
        return receiveSlice(ctx, agent, query, request.body, length === null ? null : Number(length));
      },
      // The raw body is the sealed slice; what the agent says of it is in the query.
      {
        query: SliceUploadQuery,
        parse: "none",
        response: { 200: pitrAnswers.sliceStored },
        detail: { summary: "Upload one sealed slice of a database's oplog (point-in-time recovery)" },
      },
    )
    .post(
      "/backups/:backupId/complete",
      async ({ headers, params, body }) => completeUpload(ctx, (await authenticateAgent(ctx, headers)).agent, params.backupId, body),
      { params: agentsModel.backupParams, body: CompleteUploadRequest, response: { 200: agentAnswers.completed }, detail: { summary: "Finish an upload" } },
    )
    .post(
      "/backups/:backupId/fail",
      async ({ headers, params, body }) => {
        const { agent } = await authenticateAgent(ctx, headers);
        const backup = await findOwnBackup(ctx, agent.organizationId, params.backupId);
        if (backup.agentId === agent.id) await failBackup(ctx, backup.id, body.error);
        return { status: "failed" as const };
      },
      { params: agentsModel.backupParams, body: FailRequest, response: { 200: agentAnswers.failed }, detail: { summary: "Report a failed backup" } },
    )
    .get(
      "/backups/:backupId/download",
      async ({ headers, params, request }) => {
        const { agent } = await authenticateAgent(ctx, headers);
        const backup = await findBackupForAgent(ctx, agent, params.backupId);
        return downloadBackupResponse(ctx, backup, request.headers.get("range"));
      },
      { params: agentsModel.backupParams, detail: { summary: "Download a backup to restore it", responses: encryptedFileAnswer } },
    )
    .get(
      "/restores/:restoreId/pitr-plan",
      async ({ headers, params, query }) => pointInTimePlanPage(ctx, (await authenticateAgent(ctx, headers)).agent, params.restoreId, query),
      {
        params: pitrModel.restoreParams,
        query: PointInTimePlanQuery,
        response: { 200: PointInTimePlanPage },
        detail: { summary: "A page of a point-in-time restore's plan (its slices in chain order), for the agent the restore was sent to" },
      },
    )
    .get(
      "/pitr/slices/:sliceId/download",
      async ({ headers, params, request }) => {
        const { agent } = await authenticateAgent(ctx, headers);
        return downloadSliceResponse(ctx, await findSliceForAgent(ctx, agent, params.sliceId), request.headers.get("range"));
      },
      { params: pitrModel.sliceParams, detail: { summary: "Download a stored oplog slice for a point-in-time restore", responses: encryptedFileAnswer } },
    )
    .put("/key-ids", async ({ headers, body }) => recordRotatedKeyIds(ctx, (await authenticateAgent(ctx, headers)).agent, body.keyIds), {
      body: AgentKeyIds,
      response: { 200: AgentKeyIds },
      detail: { summary: "The key ids the agent's keyring holds now (dbvault-agent key rotate, key import): recorded at once, not at its next hello" },
    })
    .get(
      "/status",
      async ({ headers }) => {
        const { organization, agent } = await authenticateAgent(ctx, headers);
        return describeAgentStatus(ctx, organization, agent);
      },
      {
        response: { 200: AgentStatusAnswer },
        detail: { summary: "The agent, each database it serves (last and next backup, point-in-time lag) and its queued work (dbvault-agent status)" },
      },
    )
    .get("/backups", async ({ headers, query }) => listAgentBackups(ctx, (await authenticateAgent(ctx, headers)).agent, query), {
      query: OperatorBackupsQuery,
      response: { 200: OperatorBackupsAnswer },
      detail: { summary: "The backups of the databases this agent serves, newest first (dbvault-agent list; ?db, ?limit up to 500)" },
    })
    .post(
      "/backups",
      async ({ headers, body, set }) => {
        const { organization, agent } = await authenticateAgent(ctx, headers);
        const backup = await backUpNow(ctx, organization, agent, body.databaseName);
        set.status = 201;
        return backup;
      },
      {
        body: BackupNowRequest,
        response: { 201: OperatorBackup },
        detail: { summary: "Back up one of this agent's databases now (dbvault-agent backup now), as Trigger Backup does: 429 before the plan allows" },
      },
    )
    .get("/backup-keys", async ({ headers }) => listRewrappableBackups(ctx, (await authenticateAgent(ctx, headers)).agent), {
      response: { 200: BackupKeysAnswer },
      detail: { summary: "The completed backups this agent may rewrap after a key rotation, with the key id each names" },
    })
    .post(
      "/copies/removal",
      async ({ headers, body }) => allowCopyRemoval(ctx, (await authenticateAgent(ctx, headers)).agent.organizationId, body.destination),
      {
        body: CopyRemovalRequest,
        response: { 200: CopyRemovalAnswer },
        detail: { summary: "Ask before removing a copy destination (refused while Protect backups is on)" },
      },
    )
    .get("/copies", async ({ headers }) => listCopiesToCheck(ctx, (await authenticateAgent(ctx, headers)).agent), {
      response: { 200: CopiesToCheckAnswer },
      detail: { summary: "The copies of this agent's backups in the customer's buckets, to check (dbvault-agent copies check)" },
    })
    .post("/copies/checks", async ({ headers, body }) => recordCopyChecks(ctx, (await authenticateAgent(ctx, headers)).agent, body.results), {
      body: CopyCheckReport,
      response: { 200: CopyCheckAnswer },
      detail: { summary: "What the check found of each copy: present, missing, changed or unreachable (missing and changed raise an alert)" },
    })
    .get("/copies/lock-floor", async ({ headers }) => copyLockFloor(ctx, (await authenticateAgent(ctx, headers)).agent.organizationId), {
      response: { 200: CopyLockFloorAnswer },
      detail: { summary: "The days the account's retention keeps a backup at least: copies add --object-lock locks copies no shorter" },
    })
    .get("/backups/:backupId/header", async ({ headers, params }) => headerResponse(ctx, (await authenticateAgent(ctx, headers)).agent, params.backupId), {
      params: agentsModel.backupParams,
      detail: {
        summary: "The header of a stored backup file (key rotation reads it to rewrap it)",
        responses: { 200: fileAnswer("The first bytes of the stored .enc.dbvault file: its whole header, as long as its format says") },
      },
    })
    .put(
      "/backups/:backupId/header",
      async ({ headers, params, request }) => replaceHeaderFromRequest(ctx, (await authenticateAgent(ctx, headers)).agent, params.backupId, request),
      // The raw header bytes: no parsing.
      {
        params: agentsModel.backupParams,
        parse: "none",
        response: { 200: HeaderReplaced },
        detail: { summary: "Replace a stored backup file's header with a rewrapped one (same length and fields; the data is untouched)" },
      },
    );

  return new Elysia({ detail: { tags: ["Agents"] } }).use(agentApi).ws("/api/agents/ws", {
    detail: {
      summary: "The agent's socket (agent id and token headers)",
      responses: { 101: { description: "Switching Protocols: messages as in protocol/agent-protocol.ts" } },
    },
    async beforeHandle({ request, headers, set }) {
      try {
        socketAgents.set(request, (await authenticateAgent(ctx, headers)).agent);
      } catch (error) {
        if (error instanceof AppError && error.code === "AGENT_REMOVED") return void socketAgents.set(request, "removed");
        // Refused credentials are the AppError's own answer; a database outage is a 503 saying
        // so (never a 401, nor the driver's message naming the database's address).
        return answerAppError(set, publicErrorOf(error, ctx.log, { path: "/api/agents/ws" }));
      }
    },
    async open(ws) {
      const agent = socketAgents.get(ws.data.request);
      if (!agent) return ws.close(4401, "unauthorized");
      if (agent === "removed") return ws.close(AGENT_REMOVED_CLOSE_CODE, AGENT_REMOVED_MESSAGE.slice(0, 120));
      await gateway.open(ws, agent);
    },
    message: (ws, message) => gateway.message(ws, message),
    close: (ws) => ctx.pendingWork.track(gateway.close(ws)),
  });
};
