import { describe, expect, test } from "bun:test";
import { chooseDatabase, explainTriggerBlocked } from "./database-selection";

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
    expect(explainTriggerBlocked("shop", [{ ...shop, agentId: null }], [])).toBe("The agent for shop is offline: start it with dbvault-agent run.");
  });

  test("nothing to say while loading, or when the agent is online or merely quiet", () => {
    expect(explainTriggerBlocked("", null, null)).toBeNull();
    expect(explainTriggerBlocked("shop", [shop], null)).toBeNull();
    expect(explainTriggerBlocked("shop", [shop], [{ id: "a1", status: "active" }])).toBeNull();
    expect(explainTriggerBlocked("shop", [shop], [{ id: "a1", status: "inactive" }])).toBeNull();
  });
});
