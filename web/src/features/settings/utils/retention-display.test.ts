import { describe, expect, test } from "bun:test";
import { describeRetentionDecision, summarizePreview } from "./retention-display";

describe("retention preview wording", () => {
  test("each decision says kept or deleted and why", () => {
    expect(describeRetentionDecision({ keep: true, reasons: ["newest", "last-verified", "daily"] })).toBe("Kept: newest, last verified, daily");
    expect(describeRetentionDecision({ keep: true, reasons: ["last-good"] })).toBe("Kept: last good before an anomaly");
    expect(describeRetentionDecision({ keep: true, reasons: ["kept-forever"] })).toBe("Kept: kept forever");
    expect(describeRetentionDecision({ keep: false, reasons: ["beyond-plan"] })).toBe("Deleted: older than your plan allows");
  });

  test("the summary counts, and says when there is nothing yet", () => {
    expect(summarizePreview({ kept: 3, deleted: 0 })).toBe("Keeps 3 of 3 backups.");
    expect(summarizePreview({ kept: 1, deleted: 1 })).toBe("Keeps 1 of 2 backups; 1 would be deleted at the next retention pass.");
    expect(summarizePreview({ kept: 0, deleted: 0 })).toBe("No completed backups yet: the policy applies to the backups to come.");
  });
});
