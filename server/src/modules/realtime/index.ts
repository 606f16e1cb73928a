import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { publicErrorOf } from "../../lib/public-error";
import { authenticateSession, sessionOrganization } from "../auth/guard";

type BrowserSocket = { send(data: string): unknown; close(code?: number, reason?: string): unknown; id: string };

const AUTH_TIMEOUT_MS = 10_000;

const isOrganizationId = (value: unknown): value is string => typeof value === "string" && /^[\w-]{1,64}$/.test(value);

/**
 * /api/ws: the browser's realtime channel. The first message must be `{ "type": "auth", "token" }`
 * (browsers cannot set headers on a WebSocket, and a token in the URL would end up in logs), with
 * `organizationId` when the page acts in another organization than the personal one (checked
 * against the memberships as the X-Organization-Id header is); after that the socket receives
 * that organization's backupProgress and restoreProgress events.
 */
export const realtimeController = (ctx: AppContext) => {
  // Keyed by socket id: Elysia hands each event a fresh wrapper around the same socket.
  const socketsByOrganization = new Map<string, Map<string, BrowserSocket>>();
  const holderOfSocket = new Map<string, { socket: BrowserSocket; userId: string; organizationId: string }>();
  const authTimers = new Map<string, Timer>();

  ctx.bus.subscribe((message) => {
    if (message.kind === "browser.disconnect") {
      for (const { socket, userId, organizationId } of [...holderOfSocket.values()]) {
        if (userId !== message.userId || (message.organizationId && organizationId !== message.organizationId)) continue;
        socket.close(4401, message.reason.slice(0, 120));
      }
      return;
    }
    if (message.kind !== "browser.event") return;
    const payload = JSON.stringify(message.event);
    for (const socket of socketsByOrganization.get(message.organizationId)?.values() ?? []) socket.send(payload);
  });

  const forget = (socket: BrowserSocket) => {
    clearTimeout(authTimers.get(socket.id));
    authTimers.delete(socket.id);
    const holder = holderOfSocket.get(socket.id);
    holderOfSocket.delete(socket.id);
    if (!holder) return;
    const sockets = socketsByOrganization.get(holder.organizationId);
    sockets?.delete(socket.id);
    if (sockets?.size === 0) socketsByOrganization.delete(holder.organizationId);
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
      if (holderOfSocket.has(ws.id)) return; // Browsers only listen once authenticated.
      const message = raw as { type?: unknown; token?: unknown; organizationId?: unknown };
      if (message?.type !== "auth" || typeof message.token !== "string") {
        ws.send(JSON.stringify({ type: "error", message: "Send { type: 'auth', token } first." }));
        ws.close(4400, "expected auth");
        return;
      }
      try {
        const { user, session } = await authenticateSession(ctx, `Bearer ${message.token}`);
        const requested = typeof message.organizationId === "string" && message.organizationId ? message.organizationId : undefined;
        const organization = await sessionOrganization(ctx, user, session, requested);
        clearTimeout(authTimers.get(ws.id));
        authTimers.delete(ws.id);
        holderOfSocket.set(ws.id, { socket: ws, userId: user.id, organizationId: organization.id });
        const sockets = socketsByOrganization.get(organization.id) ?? new Map();
        sockets.set(ws.id, ws);
        socketsByOrganization.set(organization.id, sockets);
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
