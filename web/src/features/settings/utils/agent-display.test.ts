import { describe, expect, test } from "bun:test";
import { describeAgentStatus, describeLastUpdate, formatServiceEndpoint, listAgentSetupSteps, listOfferedSystems, maskApiKey } from "./agent-display";

describe("agent status", () => {
  test("active is Online in green, inactive Inactive in yellow, anything else Offline in red", () => {
    expect(describeAgentStatus("active")).toEqual({ label: "Online", tone: "green" });
    expect(describeAgentStatus("inactive")).toEqual({ label: "Inactive", tone: "yellow" });
    expect(describeAgentStatus("offline")).toEqual({ label: "Offline", tone: "red" });
    expect(describeAgentStatus("weird").tone).toBe("red");
    expect(describeAgentStatus(null).label).toBe("Offline");
  });
});

describe("security tab", () => {
  test("the endpoint is the origin plus /api", () => {
    expect(formatServiceEndpoint("https://backup.example.com")).toBe("https://backup.example.com/api");
    expect(formatServiceEndpoint("http://127.0.0.1:3000/")).toBe("http://127.0.0.1:3000/api");
  });

  test("a masked key shows only its last 4 characters", () => {
    const key = "dbv_0123456789abcdefXYZW";
    const masked = maskApiKey(key);
    expect(masked.endsWith("XYZW")).toBe(true);
    expect(masked).not.toContain("0123");
    expect(masked).toHaveLength(key.length);
    expect(maskApiKey("")).toBe("");
  });
});

describe("agent setup", () => {
  test("the steps install from this server (Linux and macOS, or Windows), set up against it and install the service", () => {
    const steps = listAgentSetupSteps("https://vault.example.org/");
    expect(steps.map((s) => s.commands.map((c) => c.command))).toEqual([
      ["curl -fsSL https://vault.example.org/install.sh | sh", "irm https://vault.example.org/install.ps1 | iex"],
      ["dbvault-agent setup --server https://vault.example.org"],
      ["sudo dbvault-agent service install", "dbvault-agent service install"],
    ]);
    expect(steps[0]!.commands.map((c) => c.label)).toEqual(["Linux or macOS", "Windows (PowerShell)"]);
  });

  test("only the one-liners of systems the server has builds for, and how to add the others", () => {
    const linuxOnly = listOfferedSystems({ platforms: [{ os: "linux" }, { os: "darwin" }] });
    const steps = listAgentSetupSteps("http://192.0.2.2:3000", linuxOnly);
    expect(steps[0]!.commands.map((c) => c.command)).toEqual(["curl -fsSL http://192.0.2.2:3000/install.sh | sh"]);
    expect(steps[0]!.note).toBe("This server has no agent build for Windows: its administrator adds the missing builds with npm run build:agent -- --all.");
    const none = listAgentSetupSteps("http://192.0.2.2:3000", listOfferedSystems({ platforms: [] }));
    expect(none[0]!.commands).toEqual([]);
    expect(none[0]!.note).toBe("This server has no agent build for any system: its administrator adds the missing builds with npm run build:agent -- --all.");
    expect(listAgentSetupSteps("http://h", listOfferedSystems({ platforms: [{ os: "linux" }, { os: "windows" }] }))[0]!.note).toBeUndefined();
  });
});

describe("last update", () => {
  test("each step of Check for Updates has a label; only up to date, updated and failed are final", () => {
    const at = "2026-11-25T10:00:00.000Z";
    expect(describeLastUpdate(null)).toBeNull();
    expect(describeLastUpdate({ status: "waiting", message: "", version: null, at })).toEqual({
      label: "Waiting for the running backup or restore",
      tone: "yellow",
      finished: false,
    });
    expect(describeLastUpdate({ status: "updated", message: "", version: "1.0.1", at })).toEqual({ label: "Updated", tone: "green", finished: true });
    expect(describeLastUpdate({ status: "failed", message: "no", version: null, at })).toEqual({ label: "Update failed", tone: "red", finished: true });
    for (const status of ["requested", "checking", "installing", "restarting"])
      expect(describeLastUpdate({ status, message: "", version: null, at })!.finished).toBe(false);
  });
});
