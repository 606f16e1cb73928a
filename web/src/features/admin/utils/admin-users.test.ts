import { describe, expect, test } from "bun:test";
import type { AdminPlan, AdminUser } from "../api/admin-api";
import {
  agentHostOf,
  applyBanState,
  banReasonToSend,
  describeBackupProtection,
  countUsers,
  displayStatusOf,
  emailToSave,
  filterUsers,
  planNameOf,
  removeById,
  replaceUser,
} from "./admin-users";

const plan = (id: string, name: string) =>
  ({
    _id: id,
    id,
    name,
    price: 0,
    popular: false,
    storageLimit: 1,
    dbLimit: 1,
    retentionLimit: 72,
    frequencyLimit: 24,
    pitrWindowHours: 0,
    features: [],
  }) as AdminPlan;
const free = plan("p-free", "Free");
const pro = plan("p-pro", "Pro");

function user(overrides: Partial<AdminUser>): AdminUser {
  return {
    _id: "u",
    id: "u",
    name: "Some One",
    email: "some@example.com",
    role: "user",
    status: "active",
    isBanned: false,
    banReason: null,
    bannedAt: null,
    plan: free,
    storageUsed: 0,
    backupProtection: { state: "off", enabledAt: null, offRequestedAt: null, offAt: null, waitDays: 7 },
    createdAt: "2025-01-01T00:00:00.000Z",
    ...overrides,
  };
}

const ada = user({ _id: "a", name: "Ada Lovelace", email: "ada@analytical.org", plan: pro });
const grace = user({ _id: "g", name: "Grace Hopper", email: "grace@navy.mil", status: "inactive" });
const linus = user({ _id: "l", name: "Linus", email: "linus@kernel.org", isBanned: true, banReason: "Spam", bannedAt: "2025-02-02T00:00:00.000Z", plan: null });
const everyone = [ada, grace, linus];

describe("displayStatusOf", () => {
  test("banned wins over the status; a missing status reads active", () => {
    expect(displayStatusOf(ada)).toBe("active");
    expect(displayStatusOf(grace)).toBe("inactive");
    expect(displayStatusOf(linus)).toBe("banned");
    expect(displayStatusOf({ isBanned: true, status: "inactive" })).toBe("banned");
    expect(displayStatusOf({ isBanned: false, status: undefined as never })).toBe("active");
  });
});

describe("filterUsers", () => {
  test("matches name, email and plan name, ignoring case and surrounding spaces", () => {
    expect(filterUsers(everyone, "LOVELACE", [free, pro]).map((u) => u._id)).toEqual(["a"]);
    expect(filterUsers(everyone, "  navy.MIL ", [free, pro]).map((u) => u._id)).toEqual(["g"]);
    expect(filterUsers(everyone, "pro", [free, pro]).map((u) => u._id)).toEqual(["a"]);
    expect(filterUsers(everyone, "free", [free, pro]).map((u) => u._id)).toEqual(["g"]);
  });
  test("a blank search keeps everyone; no match gives an empty list", () => {
    expect(filterUsers(everyone, "   ")).toHaveLength(3);
    expect(filterUsers(everyone, "nobody-here")).toEqual([]);
  });
  test("a user without a plan is still found by name", () => {
    expect(filterUsers(everyone, "linus").map((u) => u._id)).toEqual(["l"]);
  });
});

describe("planNameOf", () => {
  test("the embedded plan's name, else the list's entry by id, else empty", () => {
    expect(planNameOf(ada, [])).toBe("Pro");
    expect(planNameOf(user({ plan: { ...pro, name: "" } }), [pro])).toBe("Pro");
    expect(planNameOf(linus, [free, pro])).toBe("");
  });
});

describe("countUsers", () => {
  test("counts all, banned, and inactive by status", () => {
    expect(countUsers(everyone)).toEqual({ total: 3, banned: 1, inactive: 1 });
    expect(countUsers([])).toEqual({ total: 0, banned: 0, inactive: 0 });
  });
});

describe("input rules", () => {
  test("ban reason defaults to 'Policy violation'", () => {
    expect(banReasonToSend("")).toBe("Policy violation");
    expect(banReasonToSend("   ")).toBe("Policy violation");
    expect(banReasonToSend("  Chargeback fraud ")).toBe("Chargeback fraud");
  });
  test("email is trimmed; blank cannot be saved", () => {
    expect(emailToSave("  new@example.com ")).toBe("new@example.com");
    expect(emailToSave("   ")).toBeNull();
  });
  test("hostname or 'unknown'", () => {
    expect(agentHostOf({ hostname: "db1" })).toBe("db1");
    expect(agentHostOf({ hostname: null as never })).toBe("unknown");
    expect(agentHostOf({ hostname: " " })).toBe("unknown");
  });
});

describe("list transitions", () => {
  test("replaceUser swaps in the server's copy and leaves the others", () => {
    const next = replaceUser(everyone, { ...grace, role: "admin" });
    expect(next.map((u) => u.role)).toEqual(["user", "admin", "user"]);
    expect(next[0]).toBe(ada);
    expect(everyone[1]!.role).toBe("user");
  });
  test("applyBanState applies isBanned, banReason and bannedAt", () => {
    const banned = applyBanState(everyone, "a", { isBanned: true, banReason: "Abuse", bannedAt: "2025-03-03T00:00:00.000Z" });
    expect(banned[0]).toMatchObject({ isBanned: true, banReason: "Abuse", bannedAt: "2025-03-03T00:00:00.000Z", name: "Ada Lovelace" });
    const unbanned = applyBanState(everyone, "l", { isBanned: false, banReason: null, bannedAt: null });
    expect(unbanned[2]).toMatchObject({ isBanned: false, banReason: null, bannedAt: null });
    expect(displayStatusOf(unbanned[2]!)).toBe("active");
  });
  test("removeById drops exactly one entry", () => {
    expect(removeById(everyone, "g").map((u) => u._id)).toEqual(["a", "l"]);
    expect(removeById(everyone, "missing")).toHaveLength(3);
  });
});

describe("describeBackupProtection", () => {
  const when = (iso: string | null) => `[${iso}]`;
  test("says on, off, or turning off at its date", () => {
    expect(describeBackupProtection({ state: "off", enabledAt: null, offRequestedAt: null, offAt: null, waitDays: 7 }, when)).toBe("Off");
    expect(describeBackupProtection({ state: "on", enabledAt: "2026-01-01T00:00:00.000Z", offRequestedAt: null, offAt: null, waitDays: 7 }, when)).toBe(
      "On since [2026-01-01T00:00:00.000Z]",
    );
    expect(
      describeBackupProtection(
        {
          state: "turning-off",
          enabledAt: "2026-01-01T00:00:00.000Z",
          offRequestedAt: "2026-01-02T00:00:00.000Z",
          offAt: "2026-01-09T00:00:00.000Z",
          waitDays: 7,
        },
        when,
      ),
    ).toBe("Turning off at [2026-01-09T00:00:00.000Z]");
  });
});
