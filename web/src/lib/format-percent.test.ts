import { describe, expect, test } from "bun:test";
import { formatPercent } from "./format-percent";

describe("formatPercent", () => {
  test("one decimal when there is one, none otherwise: the Billing tab and the dashboard read alike", () => {
    expect(formatPercent(0.0977)).toBe("0.1%");
    expect(formatPercent(42.46)).toBe("42.5%");
    expect(formatPercent(0)).toBe("0%");
    expect(formatPercent(100)).toBe("100%");
    expect(formatPercent(0.04)).toBe("0%");
  });
});
