import { describe, expect, test } from "bun:test";
import { chooseDatabase, DEFAULT_DATABASE_NAME } from "./database-selection";

describe("database selection", () => {
  test("stays on 'production-db' until an active database is found", () => {
    expect(chooseDatabase(DEFAULT_DATABASE_NAME, [])).toBe("production-db");
    expect(chooseDatabase(DEFAULT_DATABASE_NAME, [{ name: "shop", isActive: false }])).toBe("production-db");
    expect(chooseDatabase(DEFAULT_DATABASE_NAME, [{ name: "shop", isActive: false }, { name: "crm", isActive: true }])).toBe("crm");
  });

  test("keeps an active selection and leaves an inactive one", () => {
    const databases = [{ name: "a", isActive: true }, { name: "b", isActive: true }, { name: "c", isActive: false }];
    expect(chooseDatabase("b", databases)).toBe("b");
    expect(chooseDatabase("c", databases)).toBe("a");
  });
});
