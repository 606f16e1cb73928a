// A protocol-level stand-in for dbvault-agent, scripted by server tests: it registers over HTTP,
// holds the agent socket, records the commands it receives, and uploads given bytes in parts.
// It tests the server's side of the protocol in isolation; the real agent binary is exercised
// end to end elsewhere.
import { createHash } from "node:crypto";
import { AgentHeaders, agentApi, type ServerMessage, UPLOAD_PART_SIZE } from "@protocol/agent-protocol";
import { waitUntil } from "../../testkit/wait-until";

export type ScriptedAgent = {
  agentId: string;
  agentToken: string;
  received: ServerMessage[];
  /** Sees each message first; one it returns true for is not recorded in `received`. */
  intercept?: (message: ServerMessage) => boolean;
  headers(): Record<string, string>;
  /**
   * Opens the socket and says hello (with `hello`'s fields added, e.g. the databases it holds),
   * at the server it registered with or, moving as behind a load balancer, at `options.base`.
   */
  connect(hello?: Record<string, unknown>, options?: { base?: string }): Promise<void>;
  disconnect(): Promise<void>;
  send(message: Record<string, unknown>): void;
  waitFor<T extends ServerMessage["type"]>(type: T, timeoutMs?: number): Promise<Extract<ServerMessage, { type: T }>>;
  uploadPart(backupId: string, partNumber: number, bytes: Uint8Array): Promise<Response>;
  /** Uploads `bytes` in protocol-sized parts and completes; returns the completion response. */
  upload(backupId: string, bytes: Uint8Array, partSize?: number): Promise<Response>;
  complete(backupId: string, bytes: Uint8Array, partCount: number, extra?: Record<string, unknown>): Promise<Response>;
};

export async function registerScriptedAgent(
  baseUrl: string,
  apiKey: string,
  databases: string[],
  name = "test-agent",
  extra: Record<string, unknown> = {},
  /** Headers besides the API key: an agent registering again sends its own id and token (`again.headers()`). */
  headers: Record<string, string> = {},
): Promise<ScriptedAgent> {
  const res = await fetch(`${baseUrl}${agentApi.register}`, {
    method: "POST",
    headers: { ...headers, authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ name, hostname: "db-host.internal", platform: "linux-x64", version: "1.0.0", databases, ...extra }),
  });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${await res.text()}`);
  const { agentId, agentToken } = (await res.json()) as { agentId: string; agentToken: string };
  const received: ServerMessage[] = [];
  let socket: WebSocket | null = null;

  const agent: ScriptedAgent = {
    agentId,
    agentToken,
    received,
    headers: () => ({ authorization: `Bearer ${apiKey}`, [AgentHeaders.agentId]: agentId, [AgentHeaders.agentToken]: agent.agentToken }),
    async connect(hello = {}, options = {}) {
      const url = `${(options.base ?? baseUrl).replace(/^http/, "ws")}${agentApi.socket}`;
      socket = new WebSocket(url, { headers: agent.headers() } as unknown as string[]);
      socket.onmessage = (event) => {
        const message = JSON.parse(String(event.data)) as ServerMessage;
        if (agent.intercept?.(message)) return;
        received.push(message);
      };
      await new Promise<void>((resolve, reject) => {
        socket!.onopen = () => resolve();
        socket!.onerror = () => reject(new Error("agent socket failed to open"));
      });
      await agent.waitFor("welcome");
      agent.send({ type: "hello", version: "1.0.0", hostname: "db-host.internal", platform: "linux-x64", ...hello });
    },
    async disconnect() {
      // Closed already (e.g. by the server, when the agent was removed or set up again).
      if (socket?.readyState === WebSocket.CLOSED) socket = null;
      if (!socket) return;
      const closed = new Promise<void>((resolve) => (socket!.onclose = () => resolve()));
      socket.close();
      await closed;
      socket = null;
    },
    send(message) {
      socket?.send(JSON.stringify(message));
    },
    async waitFor(type, timeoutMs = 15_000) {
      const take = () => {
        const index = received.findIndex((m) => m.type === type);
        return index === -1 ? undefined : received.splice(index, 1)[0];
      };
      return waitUntil(take, { timeout: timeoutMs, interval: 10, message: `a "${type}" message for the scripted agent` }).catch((error: Error) => {
        throw new Error(`${error.message} (got ${received.map((m) => m.type).join(", ") || "nothing"})`);
      }) as never;
    },
    uploadPart: (backupId, partNumber, bytes) =>
      fetch(`${baseUrl}${agentApi.part(backupId, partNumber)}`, { method: "PUT", headers: agent.headers(), body: bytes as Uint8Array<ArrayBuffer> }),
    complete: (backupId, bytes, partCount, extra = {}) =>
      fetch(`${baseUrl}${agentApi.complete(backupId)}`, {
        method: "POST",
        headers: { ...agent.headers(), "content-type": "application/json" },
        body: JSON.stringify({ partCount, size: bytes.byteLength, sha256: createHash("sha256").update(bytes).digest("hex"), ...extra }),
      }),
    async upload(backupId, bytes, partSize = UPLOAD_PART_SIZE) {
      let partCount = 0;
      for (let offset = 0; offset < bytes.byteLength || partCount === 0; offset += partSize) {
        const res = await agent.uploadPart(backupId, partCount++, bytes.subarray(offset, offset + partSize));
        if (!res.ok) return res;
      }
      return agent.complete(backupId, bytes, partCount);
    },
  };
  return agent;
}

/**
 * Registers a new user over HTTP at `baseUrl` (a server running as its own process, which the
 * in-process harness cannot reach into) and connects a scripted agent of theirs for `databases`.
 */
export async function registerUserWithScriptedAgent(baseUrl: string, user: { name: string; email: string; password: string }, databases: string[]) {
  const registered = await fetch(`${baseUrl}/api/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(user),
  });
  if (registered.status !== 201) throw new Error(`register failed: ${registered.status} ${await registered.text()}`);
  const { token, user: created } = (await registered.json()) as { token: string; user: { apiKey: string } };
  const agent = await registerScriptedAgent(baseUrl, created.apiKey, databases);
  await agent.connect();
  return { token, agent };
}
