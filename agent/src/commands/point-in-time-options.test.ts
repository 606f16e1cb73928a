// --until reads a moment as the server's `at` does (protocol/oplog-position.ts parseMoment): the
// same times and positions, refused with the CLI's own words.
import { expect, test } from "bun:test";
import { CliError } from "../cli-error.ts";
import { parseUntil } from "./point-in-time-options.ts";

test("--until takes what the server's at takes: a zero fraction of a second, a position", () => {
  expect(parseUntil("2026-11-27T14:37:05.000Z")).toEqual({ t: 1795790225, i: 0xffff_ffff });
  expect(parseUntil("2026-11-27T14:37:05Z")).toEqual({ t: 1795790225, i: 0xffff_ffff });
  expect(parseUntil("1795760102,22")).toEqual({ t: 1795760102, i: 22 });
});

test.each(["1969-12-31T23:59:59Z", "2106-02-07T06:28:16Z", "2026-11-27T14:37:05", "yesterday"])("--until %p is refused as a usage error", (text) => {
  const refused = (() => {
    try {
      parseUntil(text);
    } catch (error) {
      return error;
    }
  })();
  expect(refused).toBeInstanceOf(CliError);
  expect((refused as CliError).message).toBe(`--until ${JSON.stringify(text)} is neither a time to the second nor an oplog position`);
});
