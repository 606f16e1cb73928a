import {
  AGENT_REMOVED_CLOSE_CODE,
  type AgentMessage,
  HEARTBEAT_INTERVAL_MS,
  RECONNECT_MAX_MS,
  RECONNECT_MIN_MS,
  type QueuedJobs,
  type ServerMessage,
} from "../../../protocol/agent-protocol";

export type SocketEvents = {
  /** A message from the server. */
  onMessage(message: ServerMessage): void;
  onConnected?(): void;
  /** The socket dropped; `retryInMs` says when the next attempt is. */
  onDisconnected?(reason: string, retryInMs: number): void;
  /** The server removed this agent (AGENT_REMOVED_CLOSE_CODE): the socket stops for good. */
  onRemoved?(reason: string): void;
};

type HelloFields = {
  version: string;
  hostname: string;
  platform: string;
  databases?: string[];
  keyIds?: string[];
  role?: "backup" | "restore";
  jobs?: QueuedJobs;
};

export type SocketOptions = {
  url: () => string;
  /** Read on every attempt, so a reset's new token is used on the next connection. */
  headers: () => Record<string, string>;
  /** What the hello says; a function is asked on every connection (the databases may have changed). */
  hello: HelloFields | (() => HelloFields);
  /** Runs before each attempt: e.g. re-reading the config, which `setup --force` may have given new credentials. */
  beforeConnect?: () => Promise<void>;
  heartbeatMs?: number;
  /** Builds each heartbeat (e.g. with the jobs the agent holds); a bare heartbeat by default. */
  heartbeat?: () => AgentMessage;
};

/**
 * Keeps a WebSocket to the server open: hello on connect, heartbeats, and reconnection with
 * backoff from 1 s doubling up to 5 s. Messages sent while disconnected are dropped (progress is
 * advisory; results also go over HTTP or are re-sent by the caller).
 */
export function startAgentSocket(options: SocketOptions, events: SocketEvents) {
  let socket: WebSocket | null = null;
  let stopped = false;
  let delay = RECONNECT_MIN_MS;
  let heartbeat: ReturnType<typeof setInterval> | null = null;
  let reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  let resolveStopped: () => void = () => {};
  const stoppedPromise = new Promise<void>((resolve) => (resolveStopped = resolve));

  const send = (message: AgentMessage) => {
    if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  };

  const scheduleReconnect = (reason: string) => {
    if (heartbeat) clearInterval(heartbeat);
    heartbeat = null;
    socket = null;
    if (stopped) return resolveStopped();
    const wait = delay;
    delay = Math.min(delay * 2, RECONNECT_MAX_MS);
    events.onDisconnected?.(reason, wait);
    reconnectTimer = setTimeout(() => void connect(), wait);
  };

  async function connect() {
    reconnectTimer = null;
    if (stopped) return;
    await options.beforeConnect?.().catch(() => {});
    if (stopped) return resolveStopped();
    // Bun's WebSocket takes headers, which carry the API key and agent token (never the URL).
    const ws = new WebSocket(options.url(), { headers: options.headers() } as unknown as string[]);
    socket = ws;
    let opened = false;
    ws.onopen = () => {
      opened = true;
      delay = RECONNECT_MIN_MS;
      send({ type: "hello", ...(typeof options.hello === "function" ? options.hello() : options.hello) });
      const beat = options.heartbeat ?? (() => ({ type: "heartbeat" }) as AgentMessage);
      heartbeat = setInterval(() => send(beat()), options.heartbeatMs ?? HEARTBEAT_INTERVAL_MS);
      events.onConnected?.();
    };
    ws.onmessage = (event) => {
      let message: ServerMessage;
      try {
        message = JSON.parse(String(event.data)) as ServerMessage;
      } catch {
        return;
      }
      events.onMessage(message);
    };
    ws.onerror = () => {};
    ws.onclose = (event) => {
      if (socket !== ws) return;
      if (event.code === AGENT_REMOVED_CLOSE_CODE) {
        // Reconnecting would be refused the same way, forever: stop and say why.
        stopped = true;
        if (heartbeat) clearInterval(heartbeat);
        socket = null;
        resolveStopped();
        events.onRemoved?.(event.reason || "this agent was removed from DBVault");
        return;
      }
      scheduleReconnect(opened ? `connection closed (${event.code}${event.reason ? `: ${event.reason}` : ""})` : "could not connect");
    };
  }

  void connect();
  return {
    send,
    isConnected: () => socket?.readyState === WebSocket.OPEN,
    /** Drops the current connection and reconnects at once (e.g. with new credentials). */
    reconnect() {
      delay = RECONNECT_MIN_MS;
      socket?.close(1000, "reconnecting");
    },
    async stop() {
      stopped = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      if (heartbeat) clearInterval(heartbeat);
      if (socket) socket.close(1000, "agent stopping");
      else resolveStopped();
      await stoppedPromise;
    },
  };
}

export type AgentSocket = ReturnType<typeof startAgentSocket>;
