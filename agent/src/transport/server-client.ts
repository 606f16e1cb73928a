import {
  type PitrAccess,
  AgentHeaders,
  agentApi,
  type AgentJobsAnswer,
  type BackupKeysAnswer,
  type CopiesToCheckAnswer,
  type CopyLockFloorAnswer,
  type CopyCheckAnswer,
  type CopyCheckResult,
  type HeaderReplaced,
  type PointInTimePlanPage,
  type CompleteUploadRequest,
  type RegisterRequest,
  type RegisterResponse,
  type ReleasesAnswer,
  type UploadStatus,
} from "../../../protocol/agent-protocol";
import { SLICE_UPLOAD_PATH, type SliceUploadQuery } from "../../../protocol/pitr";
import { type AgentStatusAnswer, type OperatorBackup, type OperatorBackupsAnswer, operatorApi } from "../../../protocol/operator";
import { describeFetchFailure, ServerRefusedError, ServerUnreachableError } from "./errors";
import { bodyAfterGo } from "./go-signals";

/** The `message` of a DBVault JSON error answer, on one line and cut short; null for anything else (a proxy's HTML page). */
function serverMessageOf(body: unknown): string | null {
  const message = (body as { message?: unknown } | null)?.message;
  if (typeof message !== "string" || message.trim() === "") return null;
  return message.replace(/\s+/g, " ").trim().slice(0, 500);
}

export type ServerCredentials = { url: string; apiKey: string; agentId?: string; agentToken?: string };

const REQUEST_TIMEOUT_MS = 60_000;

/** HTTP calls of the agent protocol. No logging here: callers decide what to say (never the key). */
export function createServerClient(credentials: ServerCredentials) {
  const base = credentials.url.replace(/\/+$/, "");
  const headers = (extra: Record<string, string> = {}): Record<string, string> => ({
    authorization: `Bearer ${credentials.apiKey}`,
    ...(credentials.agentId ? { [AgentHeaders.agentId]: credentials.agentId } : {}),
    ...(credentials.agentToken ? { [AgentHeaders.agentToken]: credentials.agentToken } : {}),
    ...extra,
  });

  async function call(path: string, init: RequestInit & { timeoutMs?: number } = {}): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        ...init,
        headers: { ...headers(), ...(init.headers as Record<string, string>) },
        signal: init.signal ?? AbortSignal.timeout(init.timeoutMs ?? REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      throw new ServerUnreachableError(`cannot reach the DBVault server at ${base}: ${describeFetchFailure(error, base)}`, error);
    }
    if (response.status >= 500) {
      // The server's own words first: a storage outage names its cause ("no space left on device").
      const said = serverMessageOf(await response.json().catch(() => null));
      const status = `the DBVault server answered ${response.status} for ${path}`;
      throw new ServerUnreachableError(said ? `${said} (${status})` : status);
    }
    if (!response.ok) {
      const body = (await response.json().catch(() => ({}))) as { message?: string; code?: string; [field: string]: unknown };
      throw new ServerRefusedError(response.status, body.code, body.message ?? `the server refused ${path} (${response.status})`, body);
    }
    return response;
  }

  /**
   * The JSON of a successful answer. An address that is not the DBVault server's API (a host that
   * serves only the web app, a captive portal, a proxy's sign-in page) answers 200 with HTML:
   * that is the wrong address, said as such, not a parse error.
   */
  async function readJson<T>(path: string, response: Response): Promise<T> {
    const text = await response.text();
    try {
      return JSON.parse(text) as T;
    } catch {
      const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim();
      const what = type.includes("html") ? `a ${type} page` : type ? `${type} content` : "something";
      throw new ServerUnreachableError(`${base}${path} answered with ${what}, not the DBVault server's JSON: is ${base} the address of the DBVault server?`);
    }
  }

  const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { "content-type": "application/json" } });

  return {
    credentials,
    /** Checks that the server is a DBVault server that answers (no credentials needed). */
    async checkService(): Promise<void> {
      await readJson("/api/agents/server-status", await call("/api/agents/server-status", { timeoutMs: 15_000 }));
    },
    /** Checks the API key; answers the account's name. Throws ServerRefusedError 401 for a wrong key. */
    async checkApiKey(): Promise<{ name: string }> {
      return readJson(agentApi.checkKey, await call(agentApi.checkKey, { timeoutMs: 15_000 }));
    },
    /** Registers this agent and its database names; answers its id and token. */
    async register(input: RegisterRequest): Promise<RegisterResponse> {
      return readJson(agentApi.register, await call(agentApi.register, { method: "POST", ...json(input) }));
    },
    /** Adds a database name, with what the point-in-time check found when it could ask. */
    async addDatabase(name: string, pitrAccess?: PitrAccess): Promise<{ databases: { name: string; isActive: boolean }[] }> {
      return readJson(agentApi.databases, await call(agentApi.databases, { method: "POST", ...json({ name, ...(pitrAccess ? { pitrAccess } : {}) }) }));
    },
    async uploadStatus(backupId: string): Promise<UploadStatus> {
      return readJson(agentApi.uploadStatus(backupId), await call(agentApi.uploadStatus(backupId)));
    },
    /**
     * Uploads one part. With `go`, the request goes out at once but its body only once `go`
     * resolves (the server says when it is ready to read it; see AgentHeaders.awaitGo).
     */
    async uploadPart(backupId: string, partNumber: number, bytes: Uint8Array, go?: Promise<void>): Promise<void> {
      const body = go ? bodyAfterGo(bytes, go) : (bytes as Uint8Array<ArrayBuffer>);
      await call(agentApi.part(backupId, partNumber), {
        method: "PUT",
        body,
        headers: {
          "content-type": "application/octet-stream",
          "content-length": String(bytes.byteLength),
          ...(go ? { [AgentHeaders.awaitGo]: "1" } : {}),
        },
        timeoutMs: 5 * 60_000,
        ...(go ? { duplex: "half" } : {}),
      });
    },
    /**
     * Uploads a sealed oplog slice with what the server records of it; a slice sent again is
     * answered as stored. `body` is its spooled file, read as it is sent.
     */
    async uploadSlice(query: SliceUploadQuery, body: Blob, signal?: AbortSignal): Promise<void> {
      const path = `${SLICE_UPLOAD_PATH}?${new URLSearchParams(query)}`;
      await call(path, {
        method: "PUT",
        body,
        headers: { "content-type": "application/octet-stream", "content-length": String(body.size) },
        timeoutMs: 5 * 60_000,
        ...(signal ? { signal: AbortSignal.any([signal, AbortSignal.timeout(5 * 60_000)]) } : {}),
      });
    },
    async complete(backupId: string, input: CompleteUploadRequest): Promise<void> {
      await call(agentApi.complete(backupId), { method: "POST", ...json(input), timeoutMs: 10 * 60_000 });
    },
    async fail(backupId: string, error: string): Promise<void> {
      await call(agentApi.fail(backupId), { method: "POST", ...json({ error }) });
    },
    /** The backup file from byte `from` on (a Range request when resuming). */
    async download(backupId: string, from = 0, signal?: AbortSignal): Promise<Response> {
      return call(agentApi.download(backupId), {
        headers: from > 0 ? { range: `bytes=${from}-` } : {},
        signal: signal ?? AbortSignal.timeout(24 * 3_600_000),
      });
    },
    /** A page of a point-in-time restore's plan: its slices after sequence `after` (none: from the first). */
    async pointInTimePlan(restoreId: string, after?: number, signal?: AbortSignal): Promise<PointInTimePlanPage> {
      const path = `${agentApi.pointInTimePlan(restoreId)}${after === undefined ? "" : `?after=${after}`}`;
      return readJson(path, await call(path, signal ? { signal: AbortSignal.any([signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]) } : {}));
    },
    /** A stored oplog slice (a point-in-time restore), from byte `from` on. */
    async sliceDownload(sliceId: string, from = 0, signal?: AbortSignal): Promise<Response> {
      return call(agentApi.sliceDownload(sliceId), {
        headers: from > 0 ? { range: `bytes=${from}-` } : {},
        signal: signal ?? AbortSignal.timeout(3_600_000),
      });
    },
    /** This agent's jobs of the server's ledger not started, oldest first (each counts as sent). */
    async jobs(): Promise<AgentJobsAnswer> {
      return readJson(agentApi.jobs, await call(agentApi.jobs, { timeoutMs: 30_000 }));
    },
    /** Tells the server a job is taken into the queue (or already held, run or running). */
    async acknowledgeJob(jobId: string): Promise<void> {
      await call(agentApi.jobAck(jobId), { method: "POST", timeoutMs: 15_000 });
    },
    /** The completed backups this agent may rewrap after a key rotation. */
    async backupKeys(): Promise<BackupKeysAnswer> {
      return readJson(agentApi.backupKeys, await call(agentApi.backupKeys));
    },
    /** Tells the server the key ids the keyring holds now (after key rotate or key import). */
    async reportKeyIds(keyIds: string[]): Promise<void> {
      await call(agentApi.keyIds, { method: "PUT", ...json({ keyIds }), timeoutMs: 15_000 });
    },
    /** Asks before removing a copy destination; throws ServerRefusedError 409 while "Protect backups" is on. */
    async allowCopyRemoval(destination: string): Promise<void> {
      await call(agentApi.copyRemoval, { method: "POST", ...json({ destination }), timeoutMs: 15_000 });
    },
    /** The copies of this agent's backups in the customer's buckets, and whether their daily check is due. */
    async copiesToCheck(): Promise<CopiesToCheckAnswer> {
      return readJson(agentApi.copies, await call(agentApi.copies));
    },
    /** Reports what the check found of each copy; the server raises the missing and changed ones. */
    async reportCopyChecks(results: CopyCheckResult[]): Promise<CopyCheckAnswer> {
      return readJson(agentApi.copyChecks, await call(agentApi.copyChecks, { method: "POST", ...json({ results }) }));
    },
    /** How long the account's retention keeps a backup at least (copies add --object-lock). */
    async copyLockFloor(): Promise<CopyLockFloorAnswer> {
      return readJson(agentApi.copyLockFloor, await call(agentApi.copyLockFloor, { timeoutMs: 15_000 }));
    },
    /** The stored backup file's header, as bytes (the server reads its length from the file). */
    async readHeader(backupId: string): Promise<Buffer> {
      return Buffer.from(await (await call(agentApi.header(backupId))).arrayBuffer());
    },
    /** Replaces the stored file's header (same length, same fields; only the key stanzas and MAC differ). */
    async replaceHeader(backupId: string, header: Uint8Array): Promise<HeaderReplaced> {
      const path = agentApi.header(backupId);
      const body = header as Uint8Array<ArrayBuffer>;
      return readJson(path, await call(path, { method: "PUT", body, headers: { "content-type": "application/octet-stream" }, timeoutMs: 60 * 60_000 }));
    },
    /** The agent, its databases' last and next backups and its queued work, as the server knows them (`status`). */
    async operatorStatus(): Promise<AgentStatusAnswer> {
      return readJson(operatorApi.status, await call(operatorApi.status, { timeoutMs: 30_000 }));
    },
    /** The backups of this agent's databases (of one with `db`), newest first (`list`). */
    async operatorBackups(query: { db?: string; limit?: number }): Promise<OperatorBackupsAnswer> {
      const params = new URLSearchParams();
      if (query.db !== undefined) params.set("db", query.db);
      if (query.limit !== undefined) params.set("limit", String(query.limit));
      const path = `${operatorApi.backups}${params.size > 0 ? `?${params}` : ""}`;
      return readJson(path, await call(path, { timeoutMs: 30_000 }));
    },
    /** Asks for a backup of one of this agent's databases now (`backup now`); ServerRefusedError 429 before the plan allows. */
    async backupNow(databaseName: string): Promise<OperatorBackup> {
      return readJson(operatorApi.backups, await call(operatorApi.backups, { method: "POST", ...json({ databaseName }), timeoutMs: 30_000 }));
    },
    /** What the server offers: the signed release manifest and its key (public: no credentials needed). */
    async releases(): Promise<ReleasesAnswer> {
      return readJson(agentApi.releases, await call(agentApi.releases, { timeoutMs: 30_000 }));
    },
    /** An agent binary; the body is the binary itself (fetch decodes zstd/gzip on the way). */
    async downloadBinary(fileName: string, signal?: AbortSignal): Promise<Response> {
      return call(agentApi.binary(fileName), { signal: signal ?? AbortSignal.timeout(60 * 60_000) });
    },
    socketUrl: () => `${base.replace(/^http/, "ws")}${agentApi.socket}`,
    socketHeaders: () => headers(),
  };
}

export type ServerClient = ReturnType<typeof createServerClient>;
