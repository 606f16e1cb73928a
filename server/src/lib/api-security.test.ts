import { describe, expect, test } from "bun:test";
import { leastRoleOf } from "./api-security";

describe("leastRoleOf", () => {
  // The table is what the auth guard enforces and the web app hides by: it must say what the
  // handlers mean (issue 41: it said admin for single sign-on, which only owners may change).
  test.each(["GET", "PUT", "DELETE"])("%s /api/organizations/current/sso/ is for owners", (method) => {
    expect(leastRoleOf(method, "/api/organizations/current/sso/")).toBe("owner");
  });

  test("approving an agent's set-up code is for admins", () => {
    expect(leastRoleOf("POST", "/api/agents/:agentId/setup-approval")).toBe("admin");
  });
});
