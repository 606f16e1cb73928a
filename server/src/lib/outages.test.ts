import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { openPostgres } from "@db/client";
import { findFreePort } from "../../../testkit/server-process";
import { FileStorage } from "../storage";
import { outageOf } from "./outages";

const dir = mkdtempSync(join(tmpdir(), "dbvault-outages-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const caught = (work: () => Promise<unknown>) =>
  work().then(
    () => {
      throw new Error("expected a failure");
    },
    (error: unknown) => error,
  );

test("a query whose database cannot be reached is a database outage, in a transaction too", async () => {
  // A real driver error: nothing listens on this port.
  const database = openPostgres(`postgres://app:pw@127.0.0.1:${findFreePort()}/postgres`, { max: 1 });
  try {
    expect(outageOf(await caught(() => database.db.execute(sql`select 1`)))).toBe("database");
    expect(outageOf(await caught(() => database.db.transaction(async (tx) => tx.execute(sql`select 1`))))).toBe("database");
  } finally {
    await database.close();
  }
});

test("a refused connection to anything else (mail, a webhook) is not mistaken for the database", async () => {
  const error = await caught(() => fetch(`http://127.0.0.1:${findFreePort()}/`));
  expect((error as { code?: string }).code).toBe("ECONNREFUSED");
  expect(outageOf(error)).toBeNull();
});

test("storage that cannot be written is a storage outage; other errors are not outages", async () => {
  const notADirectory = join(dir, "file");
  writeFileSync(notADirectory, "x");
  expect(outageOf(await caught(() => new FileStorage(notADirectory).check()))).toBe("storage");
  expect(outageOf(new TypeError("a bug"))).toBeNull();
  expect(outageOf(null)).toBeNull();
});
