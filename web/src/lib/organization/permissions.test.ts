import { expect, test } from "bun:test";
import { permissionsOf } from "./permissions";

test("each role may do what the roles below it may, and no more", () => {
  expect(permissionsOf("viewer")).toEqual({ operate: false, administer: false, own: false });
  expect(permissionsOf("operator")).toEqual({ operate: true, administer: false, own: false });
  expect(permissionsOf("admin")).toEqual({ operate: true, administer: true, own: false });
  expect(permissionsOf("owner")).toEqual({ operate: true, administer: true, own: true });
});

test("until the role is known the one-person app shows everything, as it always did", () => {
  expect(permissionsOf(null)).toEqual({ operate: true, administer: true, own: true });
});
