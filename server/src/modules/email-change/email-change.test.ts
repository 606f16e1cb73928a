// The takeover a stolen session allowed: change the e-mail, ask for a reset, sign in; the owner is
// locked out. Now the change needs the password, is confirmed by the new address, and the old one
// can undo it. Mail is read from the test server's recorded outbox.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer, type TestUser, uniqueEmail } from "../../../test/harness";
import { waitUntil } from "../../../../testkit/wait-until";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const update = (token: string, body: unknown) => server.call("PUT", "/api/user/update", { token, body });
const login = (email: string, password: string) => server.call("POST", "/api/auth/login", { body: { email, password } });

/**
 * The link in the mail to `to` with `subject` (and `mentioning` in its text), as a path
 * (/email-change/…, /reset-password/…).
 */
async function linkMailedTo(to: string, subject: string, mentioning = ""): Promise<string> {
  const mail = await waitUntil(() => server.sentMail.find((m) => m.to === to && m.subject === subject && m.text.includes(mentioning)), {
    message: `the mail '${subject}' to ${to}`,
  });
  const url = mail.text.match(/https?:\/\/\S+/)?.[0];
  expect(url).toBeDefined();
  return new URL(url!).pathname;
}

async function requestChange(user: TestUser, newEmail: string) {
  const res = await update(user.token, { email: newEmail, currentPassword: user.password });
  expect(res.status).toBe(200);
  return res;
}

describe("changing the e-mail", () => {
  test("a stolen session alone cannot change the e-mail, so it cannot reset the password through it", async () => {
    const owner = await server.registerUser();
    const attacker = uniqueEmail("attacker");
    const noPassword = await update(owner.token, { email: attacker });
    expect(noPassword.status).toBe(400);
    expect(noPassword.body.message).toContain("currentPassword");
    const wrongPassword = await update(owner.token, { email: attacker, currentPassword: "guess-guess" });
    expect(wrongPassword.status).toBe(400);
    expect(wrongPassword.body.message).toBe("Current password is incorrect");
    expect((await server.call("GET", "/api/user/profile", { token: owner.token })).body.email).toBe(owner.email);
    expect((await login(attacker, owner.password)).status).toBe(401);
  });

  test("with the password it waits for the new address's link; the old address is told and open reset links stop", async () => {
    const owner = await server.registerUser();
    await server.call("POST", "/api/auth/forgot-password", { body: { email: owner.email } });
    const resetLink = await linkMailedTo(owner.email, "Reset your DBVault password");

    const newEmail = uniqueEmail("moved");
    const asked = await requestChange(owner, newEmail.toUpperCase());
    expect(asked.body.pendingEmail).toBe(newEmail);
    expect(asked.body.user.email).toBe(owner.email);
    expect(asked.body.message).toContain(newEmail);
    // Not yet: the old e-mail still signs in, the new one does not.
    expect((await login(owner.email, owner.password)).status).toBe(200);
    expect((await login(newEmail, owner.password)).status).toBe(401);
    expect((await server.call("GET", `/api/auth${resetLink}`)).status).toBe(400);

    const notice = await waitUntil(() => server.sentMail.find((m) => m.to === owner.email && m.subject === "Your DBVault e-mail is being changed"), {
      message: "the notice to the old address",
    });
    expect(notice.text).toContain(newEmail);
    expect(notice.text).toContain("within 7 days");

    const confirm = await linkMailedTo(newEmail, "Confirm your new DBVault e-mail");
    const confirmed = await server.call("POST", `/api/auth${confirm}`);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.message).toBe(`Your e-mail is now ${newEmail}. Use it to sign in.`);
    expect((await login(newEmail, owner.password)).status).toBe(200);
    expect((await login(owner.email, owner.password)).status).toBe(401);
    // A link works once.
    expect((await server.call("POST", `/api/auth${confirm}`)).status).toBe(400);
    const logs = await server.call("GET", "/api/user/audit-logs?action=EMAIL_CHANGED", { token: owner.token });
    expect(logs.body.logs[0].details).toMatchObject({ from: owner.email, to: newEmail });
  });

  test("the old address's link undoes a confirmed change, signs every session out and stops reset links", async () => {
    const owner = await server.registerUser();
    const attacker = uniqueEmail("attacker");
    await requestChange(owner, attacker);
    await server.call("POST", `/api/auth${await linkMailedTo(attacker, "Confirm your new DBVault e-mail")}`);
    await server.call("POST", "/api/auth/forgot-password", { body: { email: attacker } });
    const attackersReset = await linkMailedTo(attacker, "Reset your DBVault password");

    const undo = await linkMailedTo(owner.email, "Your DBVault e-mail is being changed");
    const undone = await server.call("POST", `/api/auth${undo}`);
    expect(undone.status).toBe(200);
    expect(undone.body.message).toContain(`your e-mail is ${owner.email}`);
    expect((await server.call("GET", "/api/user/profile", { token: owner.token })).status).toBe(401);
    expect((await server.call("POST", `/api/auth${attackersReset}`, { body: { password: "taken-over-1" } })).status).toBe(400);
    expect((await login(owner.email, owner.password)).status).toBe(200);
    expect((await login(attacker, owner.password)).status).toBe(401);
    expect((await server.call("POST", `/api/auth${undo}`)).status).toBe(400);
  });

  test("an unconfirmed change is cancelled by the undo link, and by a newer request", async () => {
    const owner = await server.registerUser();
    const first = uniqueEmail("first");
    await requestChange(owner, first);
    const firstConfirm = await linkMailedTo(first, "Confirm your new DBVault e-mail");
    const second = uniqueEmail("second");
    await requestChange(owner, second);
    expect((await server.call("POST", `/api/auth${firstConfirm}`)).status).toBe(400);
    const secondConfirm = await linkMailedTo(second, "Confirm your new DBVault e-mail");
    const undo = await server.call("POST", `/api/auth${await linkMailedTo(owner.email, "Your DBVault e-mail is being changed", second)}`);
    expect(undo.status).toBe(200);
    expect((await server.call("POST", `/api/auth${secondConfirm}`)).status).toBe(400);
    expect((await login(owner.email, owner.password)).status).toBe(200);
  });

  test("an e-mail of another account is refused once the password is right", async () => {
    const a = await server.registerUser();
    const b = await server.registerUser();
    const taken = await update(a.token, { email: b.email, currentPassword: a.password });
    expect(taken.status).toBe(409);
    expect(taken.body.message).toBe("An account with this email already exists.");
  });

  test("the name changes at once, without the password", async () => {
    const user = await server.registerUser();
    const res = await update(user.token, { name: "New Name" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ message: "Profile updated successfully!", pendingEmail: null, user: { name: "New Name", email: user.email } });
    // The e-mail as it is is not a change.
    expect((await update(user.token, { name: "Other Name", email: user.email })).status).toBe(200);
  });
});

describe("PUT /api/user/update bodies", () => {
  test.each([
    ["a string", '"hello"', "application/json", "The request body must be a JSON object with name, email, currentPassword or code."],
    ["null", "null", "application/json", "The request body must be a JSON object with name, email, currentPassword or code."],
    ["an array", '[{"name":"Ada"}]', "application/json", "The request body must be a JSON object with name, email, currentPassword or code."],
    [
      "form data",
      "name=Ada+Lovelace",
      "application/x-www-form-urlencoded",
      "The request body must be a JSON object with name, email, currentPassword or code.",
    ],
    ["an unknown field", '{"notifications":12345}', "application/json", "notifications is not a field here: send name, email, currentPassword or code."],
  ])("%s gets 400 naming what is wrong", async (_, rawBody, contentType, message) => {
    const user = await server.registerUser();
    const res = await server.call("PUT", "/api/user/update", { token: user.token, rawBody, headers: { "content-type": contentType } });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(message);
  });

  test("validation messages of the fields", async () => {
    const user = await server.registerUser();
    expect((await update(user.token, { email: "nope" })).body.message).toBe("Please enter a valid email address");
    expect((await update(user.token, { name: "x" })).body.message).toBe("Name must be at least 2 characters");
    expect((await server.call("PUT", "/api/user/update", { rawBody: '"x"', headers: { "content-type": "application/json" } })).status).toBe(401);
  });
});
