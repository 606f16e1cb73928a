import { expect, test } from "bun:test";
import { DrizzleQueryError } from "drizzle-orm/errors";
import { createLogger } from "./logger";

function capture() {
  const lines: string[] = [];
  return { logger: createLogger("debug", (line) => lines.push(line)), lines };
}

test("a failed query is logged by the database's code and message, without its SQL or parameters", () => {
  const { logger, lines } = capture();
  const cause = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: "22021" });
  const hash = "$argon2id$v=19$m=65536,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo";
  const error = new DrizzleQueryError('insert into "users" ("email", "password_hash") values ($1, $2)', ["a@example.com", hash], cause);
  logger.error("unhandled error", { path: "/api/auth/register", error });
  const [line] = lines;
  expect(JSON.parse(line!).error).toEqual({ name: "Error", code: "22021", message: 'invalid byte sequence for encoding "UTF8": 0x00' });
  expect(line).not.toContain("argon2id");
  expect(line).not.toContain("insert into");
  expect(line).not.toContain("a@example.com");
});

test("other errors keep their name and message; secret-named fields are redacted", () => {
  const { logger, lines } = capture();
  logger.warn("storage check failed", { error: new TypeError("bucket missing"), apiKey: "dbv_live_123", uri: "mongodb://u:p@h" });
  expect(JSON.parse(lines[0]!)).toMatchObject({ error: { name: "TypeError", message: "bucket missing" }, apiKey: "[redacted]", uri: "[redacted]" });
});
