// A self-hosted server started without ADMIN_EMAIL/ADMIN_PASSWORD says in its log, while it has
// no administrator, how to make one: only an admin changes plans (point-in-time recovery, paid
// plans' limits), and the first account otherwise never learns why it cannot reach them.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { users } from "@db/schema";
import { ensureFirstAdmin, NO_ADMIN_HINT } from "../src/bootstrap";
import { createLogger } from "../src/lib/logger";
import { startTestServer, type TestServer } from "./harness";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

async function startLog(): Promise<string> {
  const lines: string[] = [];
  await ensureFirstAdmin({ ...server.ctx, log: createLogger("info", (line) => lines.push(line)) });
  return lines.join("\n");
}

test("the log says how to make an administrator while there is none, and stops once there is one", async () => {
  await server.registerUser({ name: "First Account" });
  const before = await startLog();
  expect(before).toContain(NO_ADMIN_HINT);
  expect(NO_ADMIN_HINT).toContain("ADMIN_EMAIL and ADMIN_PASSWORD");
  await server.registerAdmin();
  expect(await startLog()).not.toContain("no administrator");
});

test("ADMIN_EMAIL naming an existing account makes it an administrator, its password unchanged", async () => {
  const existing = await server.registerUser({ name: "Existing" });
  const config = { ...server.ctx.config, adminEmail: existing.email, adminPassword: "another-password-1" };
  await ensureFirstAdmin({ ...server.ctx, config, log: createLogger("info", () => {}) });
  const [row] = await server.ctx.db.select({ role: users.role }).from(users).where(eq(users.id, existing.id));
  expect(row?.role).toBe("admin");
  const signIn = await server.call("POST", "/api/auth/login", { body: { email: existing.email, password: existing.password } });
  expect(signIn.status).toBe(200);
});
