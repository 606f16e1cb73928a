import { describe, expect, test } from "bun:test";
import { chooseDatabase, explainManualLimit, explainTriggerBlocked, nextManualBackupAt } from "./database-selection";

describe("database selection", () => {
  test("no placeholder: nothing is selected until an active database exists", () => {
    expect(chooseDatabase("", [])).toBe("");
    expect(chooseDatabase("", [{ name: "shop", isActive: false }])).toBe("");
    expect(
      chooseDatabase("", [
        { name: "shop", isActive: false },
        { name: "crm", isActive: true },
      ]),
    ).toBe("crm");
  });

  test("keeps an active selection and leaves an inactive one", () => {
    const databases = [
      { name: "a", isActive: true },
      { name: "b", isActive: true },
      { name: "c", isActive: false },
    ];
    expect(chooseDatabase("b", databases)).toBe("b");
    expect(chooseDatabase("c", databases)).toBe("a");
  });
});

describe("why Trigger Backup is disabled", () => {
  const shop = { name: "shop", isActive: true, agentId: "a1" };
  test("no database, all disabled, agent offline or unknown", () => {
    expect(explainTriggerBlocked("", [], [])).toBe("Add a database with dbvault-agent setup first.");
    expect(explainTriggerBlocked("", [{ ...shop, isActive: false }], [])).toBe("Every database is disabled: enable one in Settings → Databases.");
    expect(explainTriggerBlocked("shop", [shop], [{ id: "a1", status: "offline" }])).toBe("The agent for shop is offline: start it with dbvault-agent run.");
    expect(explainTriggerBlocked("shop", [{ ...shop, agentId: null }], [])).toBe(
      "The agent for shop was removed: connect its machine again with dbvault-agent setup --force.",
    );
  });

  test("nothing to say while loading, or when the agent is online or merely quiet", () => {
    expect(explainTriggerBlocked("", null, null)).toBeNull();
    expect(explainTriggerBlocked("shop", [shop], null)).toBeNull();
    expect(explainTriggerBlocked("shop", [shop], [{ id: "a1", status: "active" }])).toBeNull();
    expect(explainTriggerBlocked("shop", [shop], [{ id: "a1", status: "inactive" }])).toBeNull();
  });
});

describe("the plan's manual backup limit", () => {
  const plan = { name: "Free", frequencyLimit: 24 };
  const at = Date.parse("2026-12-07T16:10:00Z");
  const manual = { databaseName: "shop", type: "manual", status: "completed", createdAt: new Date(at).toISOString() };
  test("used: Trigger Backup waits until the period ends, saying why as the server's 429 does", () => {
    const next = nextManualBackupAt("shop", [manual], plan, at + 60_000);
    expect(next?.getTime()).toBe(at + 24 * 3_600_000);
    expect(explainManualLimit(plan, next!)).toMatch(/^Your Free plan allows one manual backup every 24 hours: the next from Dec 8, 2026, \d+:10 [AP]M\.$/);
  });
  test("not used: a failed, scheduled or other database's backup, or a period that ended, leaves it open", () => {
    expect(nextManualBackupAt("shop", [{ ...manual, status: "failed" }], plan, at)).toBeNull();
    expect(nextManualBackupAt("shop", [{ ...manual, type: "auto" }], plan, at)).toBeNull();
    expect(nextManualBackupAt("other", [manual], plan, at)).toBeNull();
    expect(nextManualBackupAt("shop", [manual], plan, at + 24 * 3_600_000)).toBeNull();
    expect(nextManualBackupAt("shop", null, plan, at)).toBeNull();
  });
});
