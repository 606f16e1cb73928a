import { describe, expect, test } from "bun:test";
import { WEBHOOK_EVENTS } from "@protocol/webhook-events";
import { describeDelivery, EVENT_GROUPS } from "./webhook-display";

describe("webhook display", () => {
  test("the form offers every event exactly once", () => {
    expect(EVENT_GROUPS.flatMap((group) => group.events).sort()).toEqual([...WEBHOOK_EVENTS].sort());
  });

  test("a delivery reads as delivered, failed with its reason, or retrying", () => {
    const base = { lastStatusCode: null, lastError: null, nextAttemptAt: null, attempts: 1 };
    expect(describeDelivery({ ...base, status: "delivered", lastStatusCode: 200 })).toBe("Delivered (HTTP 200)");
    expect(describeDelivery({ ...base, status: "failed", lastError: "The endpoint answered HTTP 404." })).toBe("Failed: The endpoint answered HTTP 404.");
    expect(describeDelivery({ ...base, status: "pending", attempts: 0 })).toBe("Sending…");
    expect(describeDelivery({ ...base, status: "pending", lastError: "The endpoint answered HTTP 500.", nextAttemptAt: "2026-03-01T10:00:30.000Z" })).toMatch(
      /^Retrying at Mar 1, 2026, .* \(The endpoint answered HTTP 500\.\)$/,
    );
  });
});
