import { describe, expect, test } from "bun:test";
import { canToggleDatabase, describeDatabaseAllowance } from "./database-limits";

describe("dbLimit rule", () => {
  test("an active database can always be disabled", () => {
    expect(canToggleDatabase({ isActive: true }, 5, 1)).toBe(true);
  });

  test("a disabled database can be enabled only while fewer than dbLimit are active", () => {
    expect(canToggleDatabase({ isActive: false }, 0, 1)).toBe(true);
    expect(canToggleDatabase({ isActive: false }, 1, 1)).toBe(false);
    expect(canToggleDatabase({ isActive: false }, 2, 3)).toBe(true);
  });

  test("the allowance line says the limit, 'unlimited' above 500", () => {
    expect(describeDatabaseAllowance({ name: "Free", dbLimit: 1 }, 1)).toBe("Your Free plan allows 1 active database; 1 active now.");
    expect(describeDatabaseAllowance({ name: "Business", dbLimit: 1000 }, 4)).toBe("Your Business plan allows unlimited active databases; 4 active now.");
  });
});
