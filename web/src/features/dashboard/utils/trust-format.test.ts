import { describe, expect, test } from "bun:test";
import { describeDrillResult, describeVerification, formatDuration } from "./trust-format";

const completed = { status: "completed", verifiedAt: null, verification: null };

describe("describeVerification", () => {
  test("a verification waiting for a restore agent says so, with the server's reason", () => {
    const reason = "Waiting for a restore agent: none online. recovery-laptop can read this backup; start dbvault-agent run there and it begins at once.";
    expect(describeVerification({ ...completed, verificationWaitingFor: reason })).toMatchObject({
      label: "Waiting for a restore agent",
      tone: "warning",
      detail: reason,
    });
  });

  test("only completed backups have a badge; never verified reads 'Not verified'", () => {
    expect(describeVerification({ ...completed, status: "failed" })).toBeNull();
    expect(describeVerification(completed)).toMatchObject({ label: "Not verified", tone: "neutral", time: "", lines: [] });
  });

  test("verified: green, the total in words and one sorted line per collection", () => {
    const look = describeVerification({
      ...completed,
      verifiedAt: "2026-03-18T12:00:00Z",
      verification: { status: "ok", namespaces: { "shop.orders": 1200, "shop.a": 1 } },
    });
    expect(look).toMatchObject({ label: "Verified", tone: "success", detail: "Read back from storage, decrypted and checked: 1,201 documents." });
    expect(look!.lines).toEqual(["shop.a: 1 document", "shop.orders: 1,200 documents"]);
    expect(look!.time).toMatch(/2026/);
  });

  test("verified without replaying its oplog window: still green, saying why it was not replayed", () => {
    const notReplayed = 'this agent has no database "shop" configured to replay its oplog window into';
    const look = describeVerification({ ...completed, verification: { status: "ok", namespaces: { "shop.orders": 2 }, notReplayed } });
    expect(look).toMatchObject({
      label: "Verified",
      tone: "success",
      detail: `Read back from storage, decrypted and checked: 2 documents. Its oplog window was not replayed: ${notReplayed}.`,
    });
  });

  test("failed: red with the agent's reason", () => {
    const look = describeVerification({
      ...completed,
      verifiedAt: "2026-03-18T12:00:00Z",
      verification: { status: "failed", namespaces: {}, error: "chunk 3 failed authentication" },
    });
    expect(look).toMatchObject({ label: "Verification failed", tone: "danger", detail: "chunk 3 failed authentication" });
  });
});

describe("drills", () => {
  const report = { durationMs: 125_000, documents: { expected: 10, restored: 10 }, indexes: { expected: 4, found: 4 }, scratchDropped: true };
  test("a passed drill names what it restored and checked; restores keep their own wording", () => {
    expect(describeDrillResult({ kind: "drill", status: "completed", error: null, drill: report })).toBe(
      "Drill passed: 10 documents restored of 10, 4 of 4 indexes, in 2 min 5 s; scratch database dropped",
    );
    expect(describeDrillResult({ kind: "drill", status: "completed", error: null, drill: { ...report, scratchDropped: false } })).toEndWith(
      "scratch database NOT dropped",
    );
    expect(describeDrillResult({ kind: "drill", status: "failed", error: "drill failed: x", drill: null })).toBe("drill failed: x");
    expect(describeDrillResult({ kind: "restore", status: "completed", error: null, drill: null })).toBeNull();
  });

  test("durations read in ms, s, or min and s", () => {
    expect([formatDuration(850), formatDuration(12_400), formatDuration(185_000)]).toEqual(["850 ms", "12 s", "3 min 5 s"]);
  });
});
