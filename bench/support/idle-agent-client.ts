// The client side of bench/idle-agents.ts, in its own process: reads agent credentials (JSON) on
// stdin, opens one agent socket per agent, says hello, sends heartbeats every
// HEARTBEAT_INTERVAL_MS (staggered so they do not all arrive at once), prints "connected N" when
// every socket has its welcome, and runs until killed.
//   bun bench/support/idle-agent-client.ts <server url> <api key> < credentials.json
import { AgentHeaders, agentApi, HEARTBEAT_INTERVAL_MS } from "@protocol/agent-protocol";

const [url, apiKey] = process.argv.slice(2);
if (!url || !apiKey) {
  console.error("usage: bun bench/support/idle-agent-client.ts <server url> <api key> < credentials.json");
  process.exit(2);
}
const agents = JSON.parse(await Bun.stdin.text()) as { agentId: string; agentToken: string }[];
const socketUrl = `${url.replace(/^http/, "ws")}${agentApi.socket}`;
const sockets: WebSocket[] = [];

function connect(agent: { agentId: string; agentToken: string }, index: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const headers = { authorization: `Bearer ${apiKey}`, [AgentHeaders.agentId]: agent.agentId, [AgentHeaders.agentToken]: agent.agentToken };
    const socket = new WebSocket(socketUrl, { headers } as unknown as string[]);
    sockets.push(socket);
    socket.onmessage = (event) => {
      const message = JSON.parse(String(event.data)) as { type: string };
      if (message.type !== "welcome") return;
      socket.send(JSON.stringify({ type: "hello", version: "1.0.0", hostname: `host-${index}.internal`, platform: "linux-x64" }));
      const stagger = (index * HEARTBEAT_INTERVAL_MS) / agents.length;
      setTimeout(() => {
        socket.send(JSON.stringify({ type: "heartbeat" }));
        setInterval(() => socket.send(JSON.stringify({ type: "heartbeat" })), HEARTBEAT_INTERVAL_MS);
      }, stagger);
      resolve();
    };
    socket.onerror = () => reject(new Error(`agent socket ${index} failed`));
    socket.onclose = (event) => console.error(`agent socket ${index} closed: ${event.code} ${event.reason}`);
  });
}

const started = performance.now();
for (let i = 0; i < agents.length; i += 50) {
  await Promise.all(agents.slice(i, i + 50).map((agent, k) => connect(agent, i + k)));
}
console.log(`connected ${sockets.length} agent sockets in ${((performance.now() - started) / 1000).toFixed(1)} s`);
// Stays up on its sockets and timers until the bench kills it.
