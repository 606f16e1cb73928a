import { expect, test } from "bun:test";
import { describePlaces } from "./places-format";

const copy = (destination: string, status: "stored" | "failed" | "missing" | "changed", error: string | null = null) => ({
  destination,
  key: "dbvault/shop/f.enc.dbvault",
  status,
  error,
});

test("a backup without copies is in 1 place, with a stored copy in 2, a failed copy does not count and turns it amber", () => {
  expect(describePlaces({ status: "completed", copies: [] })).toEqual({ label: "1 place", tone: "neutral", lines: ["DBVault storage"] });
  expect(describePlaces({ status: "completed", copies: [copy("s3://acme/dbvault/?endpoint=https%3A%2F%2Fs3.example.com", "stored")] })).toEqual({
    label: "2 places",
    tone: "success",
    lines: ["DBVault storage", "Your bucket: s3://acme/dbvault/ (dbvault/shop/f.enc.dbvault)"],
  });
  const mixed = describePlaces({ status: "completed", copies: [copy("s3://acme/a/", "stored"), copy("s3://gone/b/", "failed", "NoSuchBucket")] });
  expect(mixed?.label).toBe("2 places");
  expect(mixed?.tone).toBe("warning");
  expect(mixed?.lines[2]).toBe("Copy to s3://gone/b/ failed: NoSuchBucket. The agent log says more.");
  expect(describePlaces({ status: "in-progress", copies: [] })).toBeNull();
});

test("a copy the check found gone or changed is not a place and turns the badge amber, saying what was found", () => {
  const look = describePlaces({
    status: "completed",
    copies: [
      copy("s3://acme/a/", "missing", "the bucket has no such object (NoSuchKey)"),
      copy("s3://acme/b/?region=x", "changed", "20 bytes instead of 1234"),
    ],
  });
  expect(look).toEqual({
    label: "1 place",
    tone: "warning",
    lines: [
      "DBVault storage",
      "Copy in s3://acme/a/ is gone: the bucket has no such object (NoSuchKey)",
      "Copy in s3://acme/b/ was changed: 20 bytes instead of 1234",
    ],
  });
});
