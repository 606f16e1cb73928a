import { describe, expect, test } from "bun:test";
import { readSettingsLocation, settingsPathFor } from "./settings-tabs";

describe("settings query parameters", () => {
  test("no parameters open General", () => {
    expect(readSettingsLocation("", [])).toEqual({ tab: "general", agentId: null });
  });

  test("tab names a tab; unknown tabs fall back to General", () => {
    expect(readSettingsLocation("?tab=security", []).tab).toBe("security");
    expect(readSettingsLocation("tab=notifications", []).tab).toBe("notifications");
    expect(readSettingsLocation("?tab=billing", []).tab).toBe("general");
  });

  test("a known agent opens Agents with it selected, whatever the tab says", () => {
    expect(readSettingsLocation("?tab=security&agent=a1", ["a1", "a2"])).toEqual({ tab: "agents", agentId: "a1" });
  });

  test("an unknown agent is ignored", () => {
    expect(readSettingsLocation("?agent=zz&tab=databases", ["a1"])).toEqual({ tab: "databases", agentId: null });
  });

  test("changing tab keeps the tab and drops the agent", () => {
    expect(settingsPathFor("databases")).toBe("/settings?tab=databases");
    expect(settingsPathFor("general")).toBe("/settings");
  });
});
