import { expect, test } from "bun:test";
import { Elysia, t } from "elysia";
import { httpBasics } from "./http";
import { createLogger } from "./logger";

test("an answer that breaks its own schema is our 500, logged by field path without the value", async () => {
  const lines: string[] = [];
  const log = createLogger("debug", (line) => lines.push(line));
  const secret = "dbv_not-for-the-log";
  const app = new Elysia()
    .use(httpBasics(log, { https: false }))
    .get("/broken", () => ({ count: secret }) as unknown as { count: number }, { response: { 200: t.Object({ count: t.Number() }) } })
    .get("/extra", () => ({ count: 1, passwordHash: "x" }), { response: { 200: t.Object({ count: t.Number() }) } });

  const broken = await app.handle(new Request("http://localhost/broken"));
  expect(broken.status).toBe(500);
  expect(await broken.json()).toMatchObject({ code: "INTERNAL" });
  expect(lines.join("\n")).toContain("answer does not match its schema");
  expect(lines.join("\n")).toContain("/count");
  expect(lines.join("\n")).not.toContain(secret);

  // A field the schema does not list never leaves the server.
  expect(await (await app.handle(new Request("http://localhost/extra"))).json()).toEqual({ count: 1 });
});
