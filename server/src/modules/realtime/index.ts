import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { publicErrorOf } from "../../lib/public-error";
import { authenticate } from "../auth/guard";
import { currentOrganization } from "../organizations/current-organization";

type BrowserSocket = { send(data: string): unknown; close(code?: number, reason?: string): unknown; id: string };

const AUTH_TIMEOUT_MS = 10_000;

const isOrganizationId = (value: unknown): value is string => typeof value === "string" && /^[\w-]{1,64}$/.test(value);

/**
 * /api/ws: the browser's realtime channel. The first message must be `{ "type": "auth", "token" }`
 * (browsers cannot set headers on a WebSocket, and a token in the URL would end up in logs), with
 * the `organizationId` the web app's requests name in X-Organization-Id, checked against the
 * user's memberships as the header is; after that the socket receives its user's backupProgress
 * and restoreProgress events.
 */
export const realtimeController = (ctx: AppContext) => {
  // Keyed by socket id: Elysia hands each event a fresh wrapper around the same socket.
  const socketsByUser = new Map<string, Map<string, BrowserSocket>>();
  const userOfSocket = new Map<string, string>();
  const authTimers = new Map<string, Timer>();

  ctx.bus.subscribe((message) => {
    if (message.kind === "browser.disconnect") {
      for (const socket of socketsByUser.get(message.userId)?.values() ?? []) socket.close(4401, message.reason.slice(0, 120));
      return;
    }
    if (message.kind !== "browser.event") return;
    const payload = JSON.stringify(message.event);
    for (const socket of socketsByUser.get(message.userId)?.values() ?? []) socket.send(payload);
  });

  const forget = (socket: BrowserSocket) => {
    clearTimeout(authTimers.get(socket.id));
    authTimers.delete(socket.id);
    const userId = userOfSocket.get(socket.id);
    userOfSocket.delete(socket.id);
    if (!userId) return;
    const sockets = socketsByUser.get(userId);
    sockets?.delete(socket.id);
    if (sockets?.size === 0) socketsByUser.delete(userId);
  };

  return new Elysia().ws("/api/ws", {
    detail: {
      summary: "The browser's event socket (token in the first message)",
      responses: { 101: { description: "Switching Protocols: events as in protocol/" } },
    },
    open(ws) {
      authTimers.set(
        ws.id,
        setTimeout(() => ws.close(4401, "authentication timeout"), AUTH_TIMEOUT_MS),
      );
    },
    async message(ws, raw) {
      if (userOfSocket.has(ws.id)) return; // Browsers only listen once authenticated.
      const message = raw as { type?: unknown; token?: unknown; organizationId?: unknown };
      const organizationId = message?.organizationId;
      if (message?.type !== "auth" || typeof message.token !== "string" || (organizationId !== undefined && !isOrganizationId(organizationId))) {
        ws.send(JSON.stringify({ type: "error", message: "Send { type: 'auth', token, organizationId? } first." }));
        ws.close(4400, "expected auth");
        return;
      }
      try {
        const user = await authenticate(ctx, `Bearer ${message.token}`);
        await currentOrganization(ctx.db, user.id, organizationId || undefined);
        clearTimeout(authTimers.get(ws.id));
        authTimers.delete(ws.id);
        userOfSocket.set(ws.id, user.id);
        const sockets = socketsByUser.get(user.id) ?? new Map();
        sockets.set(ws.id, ws);
        socketsByUser.set(user.id, sockets);
        ws.send(JSON.stringify({ type: "ready" }));
      } catch (error) {
        const answer = publicErrorOf(error, ctx.log, { path: "/api/ws" });
        ws.send(JSON.stringify({ type: "error", message: answer.message }));
        // 4401 only when the token itself was refused; an outage (1013: try again later) or a bug
        // (1011) says nothing about the token, and the browser reconnects after either.
        if (answer.status < 500) ws.close(4401, "unauthorized");
        else ws.close(answer.status === 503 ? 1013 : 1011, answer.status === 503 ? "service unavailable" : "internal error");
      }
    },
    close(ws) {
      forget(ws);
    },
  });
};
