import { describe, expect, test } from "bun:test";
import { createFinishedFilter, describeAgentStatus, describeRestoreDetails, describeStatus, isRunning } from "./operation-status";

describe("status badges", () => {
  test("the four operation statuses", () => {
    expect(describeStatus("completed")).toEqual({ label: "Completed", tone: "success", spinning: false });
    expect(describeStatus("failed")).toEqual({ label: "Failed", tone: "danger", spinning: false });
    expect(describeStatus("pending")).toEqual({ label: "Pending", tone: "warning", spinning: true });
    expect(describeStatus("in-progress")).toEqual({ label: "In Progress", tone: "warning", spinning: true });
  });

  test("any other value is capitalised with a neutral look", () => {
    expect(describeStatus("cancelled")).toEqual({ label: "Cancelled", tone: "neutral", spinning: false });
    expect(describeStatus("")).toEqual({ label: "Unknown", tone: "neutral", spinning: false });
  });

  test("running means pending or in progress", () => {
    expect(isRunning("pending")).toBe(true);
    expect(isRunning("in-progress")).toBe(true);
    expect(isRunning("completed")).toBe(false);
    expect(isRunning("failed")).toBe(false);
  });

  test("agent status: Online green, Inactive yellow, otherwise Offline red", () => {
    expect(describeAgentStatus("active")).toEqual({ label: "Online", tone: "success" });
    expect(describeAgentStatus("inactive")).toEqual({ label: "Inactive", tone: "warning" });
    expect(describeAgentStatus("offline")).toEqual({ label: "Offline", tone: "danger" });
    expect(describeAgentStatus("whatever")).toEqual({ label: "Offline", tone: "danger" });
  });
});

describe("restore details column", () => {
  test("an error is cut to 50 characters plus '...' only when longer", () => {
    const fifty = "x".repeat(50);
    expect(describeRestoreDetails({ status: "failed", error: fifty })).toBe(fifty);
    expect(describeRestoreDetails({ status: "failed", error: `${fifty}yz` })).toBe(`${fifty}...`);
    expect(describeRestoreDetails({ status: "failed", error: "wrong key" })).toBe("wrong key");
  });

  test("without an error the status in words", () => {
    expect(describeRestoreDetails({ status: "completed", error: null })).toBe("Restore completed successfully");
    expect(describeRestoreDetails({ status: "failed" })).toBe("Restore failed");
    expect(describeRestoreDetails({ status: "pending" })).toBe("Restore in progress");
    expect(describeRestoreDetails({ status: "in-progress" })).toBe("Waiting for agent");
  });
});

test("a late progress event after an operation finished is dropped; other operations are not affected", () => {
  const accept = createFinishedFilter();
  expect(["in-progress", "completed", "in-progress", "completed"].map((status) => accept("a", status))).toEqual([true, true, false, false]);
  expect(accept("b", "in-progress")).toBe(true);
  expect(accept("b", "failed")).toBe(true);
  expect(accept("b", "pending")).toBe(false);
});
