import { expect, test } from "bun:test";
import { describeBucket, describeCopyStatus } from "./copy-status";

test("a copy reads as stored, not written, missing or changed, with its last check, size and what was found", () => {
  const stored = describeCopyStatus({
    status: "stored",
    size: 2048,
    checkedAt: "2026-03-18T12:00:00.000Z",
    error: null,
    lockedUntil: "2026-04-17T12:00:00.000Z",
  });
  expect(stored).toMatchObject({ label: "Stored", tone: "success", size: "2 KB", note: null });
  expect(stored.checked).toStartWith("Checked Mar 18, 2026");
  expect(stored.locked).toStartWith("Locked until Apr 17, 2026");
  expect(describeCopyStatus({ status: "failed", size: null, checkedAt: null, error: "NoSuchBucket", lockedUntil: null })).toEqual({
    label: "Not written",
    tone: "warning",
    checked: "Never checked",
    size: "—",
    locked: null,
    note: "NoSuchBucket",
  });
  expect(describeCopyStatus({ status: "missing", size: 10, checkedAt: null, error: "gone", lockedUntil: null })).toMatchObject({
    label: "Missing",
    tone: "danger",
    note: "gone",
  });
  expect(describeCopyStatus({ status: "changed", size: 10, checkedAt: null, error: null, lockedUntil: null })).toMatchObject({
    label: "Changed",
    tone: "danger",
  });
  expect(describeBucket("s3://acme/dbvault/?endpoint=https%3A%2F%2Fs3.example.com&region=eu")).toBe("s3://acme/dbvault/");
});
