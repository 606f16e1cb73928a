import { expect, test } from "bun:test";
import { DEFAULT_RETENTION_HOURS } from "@protocol/schedule";
import { defaultPlans } from "./seed";

// A new account keeps backups DEFAULT_RETENTION_HOURS: a plan's pricing must not read as if every
// account kept its full retention limit ("7 days of backup history" on Free, whose accounts keep 3).
test("each plan's pricing names its retention as a limit the default stays within", () => {
  for (const plan of defaultPlans) {
    expect(plan.retentionLimit).toBeGreaterThanOrEqual(DEFAULT_RETENTION_HOURS);
    const history = plan.features.filter((feature) => /backup history|kept|retention/i.test(feature.text));
    expect(history).toHaveLength(1);
    expect(history[0]!.text).toMatch(/\bup to\b/i);
  }
});
