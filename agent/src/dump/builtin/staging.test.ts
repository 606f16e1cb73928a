import { describe, expect, test } from "bun:test";
import { createStagingArea, isStagingName } from "./staging.ts";

const bytes = (text: string) => Buffer.byteLength(text, "utf8");
const area = createStagingArea("abc123");

describe("staging names", () => {
  test("a short name is staged beside its target as <name>.dbvault-restore-<id>", () => {
    expect(area.locate("shop", "orders")).toEqual({ db: "shop", name: "orders.dbvault-restore-abc123" });
  });

  test("a 255-byte namespace gets a staging name in its own database within 255 bytes, even as time-series buckets", () => {
    for (const db of ["lng", "d".repeat(63)]) {
      const name = "y".repeat(255 - bytes(db) - 1);
      const staged = area.locate(db, name);
      expect(staged.db).toBe(db);
      expect(bytes(`${db}.system.buckets.${staged.name}`)).toBeLessThanOrEqual(255);
      expect(bytes(staged.name)).toBeLessThanOrEqual(235); // FerretDB 1.x's limit for a collection name
      expect(staged.name.startsWith("yyyy")).toBe(true);
      expect(isStagingName(staged.name)).toBe(true);
    }
  });

  test("long names sharing their start get different staging names, the same one each time", () => {
    const first = area.locate("lng", `${"y".repeat(240)}a`);
    const second = area.locate("lng", `${"y".repeat(240)}b`);
    expect(first.name).not.toBe(second.name);
    expect(area.locate("lng", `${"y".repeat(240)}a`)).toEqual(first);
  });

  test("a long name of multi-byte characters is cut between characters", () => {
    const staged = area.locate("lng", "é".repeat(125));
    expect(bytes(`lng.system.buckets.${staged.name}`)).toBeLessThanOrEqual(255);
    expect(staged.name).toMatch(/^é+\.[0-9a-f]{12}\.dbvault-restore-abc123$/);
  });

  test("isStagingName knows the names of every agent, and nothing else", () => {
    expect(isStagingName("orders.dbvault-restore-abc123")).toBe(true);
    expect(isStagingName(area.locate("lng", "y".repeat(251)).name)).toBe(true);
    expect(isStagingName("orders")).toBe(false);
    expect(isStagingName("orders.dbvault-restore-ABC123")).toBe(false);
  });
});
