import { expect, test } from "bun:test";
import { assignableRoles, canManageMember } from "./member-rules";

test("admins give roles up to admin; only owners make owners; others none", () => {
  expect(assignableRoles("owner")).toEqual(["owner", "admin", "operator", "viewer"]);
  expect(assignableRoles("admin")).toEqual(["admin", "operator", "viewer"]);
  expect(assignableRoles("operator")).toEqual([]);
  expect(assignableRoles("viewer")).toEqual([]);
});

test("admins manage everyone but owners and themselves; owners manage owners too", () => {
  expect(canManageMember("admin", "operator", false)).toBe(true);
  expect(canManageMember("admin", "owner", false)).toBe(false);
  expect(canManageMember("owner", "owner", false)).toBe(true);
  expect(canManageMember("owner", "viewer", true)).toBe(false);
  expect(canManageMember("operator", "viewer", false)).toBe(false);
});
