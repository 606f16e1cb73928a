import { afterEach, expect, test } from "bun:test";
import { SYSTEM_LIBRARIES_SWITCH, systemLibraryLoader } from "./system-library";

const names = { [process.platform]: ["first", "second"] };

afterEach(() => {
  delete process.env[SYSTEM_LIBRARIES_SWITCH];
});

test("the first name that opens is used, and remembered", () => {
  const tried: string[] = [];
  const load = systemLibraryLoader(names, (name) => {
    tried.push(name);
    if (name === "first") throw new Error("not there");
    return { name };
  });
  expect(load()).toEqual({ name: "second" });
  expect(load()).toEqual({ name: "second" });
  expect(tried).toEqual(["first", "second"]);
});

test(`${SYSTEM_LIBRARIES_SWITCH}=off loads nothing: the agent's own code does the job`, () => {
  process.env[SYSTEM_LIBRARIES_SWITCH] = "off";
  let opened = 0;
  const load = systemLibraryLoader(names, (name) => {
    opened++;
    return { name };
  });
  expect(load()).toBeNull();
  expect(opened).toBe(0);
});
