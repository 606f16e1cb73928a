// Forgot-password answers before the reset mail is stored and sent, so how long it takes does not
// tell whether an address has an account. Checked without timing: the mailer is held shut while
// the answer must already have arrived.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { waitUntil } from "../../testkit/wait-until";
import type { Mail } from "../src/modules/mail/mailer";
import { startTestServer, type TestServer } from "./harness";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

test("the answer comes while the reset mail is still held, the same as for an unknown address", async () => {
  const user = await server.registerUser();
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const sent: Mail[] = [];
  server.ctx.mailer = {
    send: async (mail) => {
      await held;
      sent.push(mail);
    },
    close() {},
  };
  const known = await server.call("POST", "/api/auth/forgot-password", { body: { email: user.email } });
  const unknown = await server.call("POST", "/api/auth/forgot-password", { body: { email: "nobody-here@example.com" } });
  expect(known.status).toBe(200);
  expect(known.body).toEqual(unknown.body);
  expect(sent).toEqual([]);
  release();
  const mail = await waitUntil(() => sent.find((m) => m.to === user.email), { message: "the reset mail once released" });
  expect(mail.text).toContain("/reset-password/");
  expect(sent).toHaveLength(1);
});
