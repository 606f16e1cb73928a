// Sessions end when they should: sign-out, a password change and a ban close the user's open
// browser sockets (a ban also the agents'), and no token from before a sign-out, a password
// change or a ban works afterwards, unbanning included. Real HTTP and WebSockets on loopback.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { waitUntil } from "../../testkit/wait-until";
import { startTestServer, type TestServer } from "./harness";
import { registerScriptedAgent } from "./scripted-agent";

let server: TestServer;
let base: string;
beforeAll(async () => {
  server = await startTestServer();
  base = server.listen();
});
afterAll(() => server.close());

async function openBrowserSocket(token: string) {
  const socket = new WebSocket(`${base.replace(/^http/, "ws")}/api/ws`);
  let closed: { code: number; reason: string } | null = null;
  socket.onclose = (event) => (closed = { code: event.code, reason: event.reason });
  await new Promise<void>((resolve) => (socket.onopen = () => resolve()));
  const ready = new Promise<void>((resolve) => (socket.onmessage = (event) => String(event.data).includes('"ready"') && resolve()));
  socket.send(JSON.stringify({ type: "auth", token }));
  await ready;
  return { closed: () => closed };
}

const profile = (token: string) => server.call("GET", "/api/user/profile", { token });

test("sign-out revokes every token issued so far and closes the user's sockets", async () => {
  const user = await server.registerUser();
  const other = await server.call("POST", "/api/auth/login", { body: { email: user.email, password: user.password } });
  const socket = await openBrowserSocket(user.token);
  const answer = await server.call("POST", "/api/auth/logout", { token: user.token });
  expect(answer).toMatchObject({ status: 200, body: { message: "Signed out" } });
  expect((await profile(user.token)).status).toBe(401);
  expect((await profile(other.body.token)).status).toBe(401);
  await waitUntil(() => socket.closed()?.code === 4401, { message: "the socket to close" });
  const again = await server.call("POST", "/api/auth/login", { body: { email: user.email, password: user.password } });
  expect((await profile(again.body.token)).status).toBe(200);
  expect((await server.call("POST", "/api/auth/logout", {})).status).toBe(401);
});

test("a password change closes the sockets opened with older tokens", async () => {
  const user = await server.registerUser();
  const socket = await openBrowserSocket(user.token);
  const changed = await server.call("PUT", "/api/user/password", {
    token: user.token,
    body: { currentPassword: user.password, newPassword: "brand-new-pass-1" },
  });
  expect(changed.status).toBe(200);
  await waitUntil(() => socket.closed()?.code === 4401, { message: "the socket to close" });
  expect((await profile(user.token)).status).toBe(401);
  expect((await profile(changed.body.token)).status).toBe(200);
});

test("a ban closes the user's browser and agent sockets; unbanning does not revive the old token", async () => {
  const admin = await server.registerAdmin();
  const user = await server.registerUser();
  const agent = await registerScriptedAgent(base, user.apiKey, ["orders"]);
  await agent.connect();
  const socket = await openBrowserSocket(user.token);
  expect((await server.call("PUT", `/api/admin/users/${user.id}/ban`, { token: admin.token, body: { isBanned: true } })).status).toBe(200);
  await waitUntil(() => socket.closed()?.code === 4401, { message: "the browser socket to close" });
  await agent.waitFor("close");
  // While banned, the old token still says why (the banned page).
  expect((await profile(user.token)).status).toBe(403);
  expect((await server.call("PUT", `/api/admin/users/${user.id}/ban`, { token: admin.token, body: { isBanned: false } })).status).toBe(200);
  expect((await profile(user.token)).status).toBe(401);
  const fresh = await server.call("POST", "/api/auth/login", { body: { email: user.email, password: user.password } });
  expect((await profile(fresh.body.token)).status).toBe(200);
});
