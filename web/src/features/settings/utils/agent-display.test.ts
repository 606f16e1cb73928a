import { describe, expect, test } from "bun:test";
import { describeAgentStatus, formatServiceEndpoint, listAgentSetupSteps, maskApiKey } from "./agent-display";

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
  test("the steps install from this server, set up against it and install the service", () => {
    const steps = listAgentSetupSteps("https://vault.example.org/");
    expect(steps.map((s) => s.command)).toEqual([
      "curl -fsSL https://vault.example.org/install.sh | sh",
      "dbvault-agent setup --server https://vault.example.org",
      "sudo dbvault-agent service install",
    ]);
  });
});
