import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { renderBody, signBody } from "./payload";

const at = new Date("2026-03-01T10:00:00.000Z");
const backup = { id: "b1", databaseName: "<!channel> shop & co", type: "auto", status: "failed", size: 0, error: "disk <full>" };

describe("webhook bodies", () => {
  test("JSON: event, occurredAt and the event's facts", () => {
    const body = JSON.parse(renderBody({ event: "backup.failed", backup }, "json", at, "https://vault.example.com"));
    expect(body).toEqual({ event: "backup.failed", occurredAt: "2026-03-01T10:00:00.000Z", backup });
  });

  test("Slack: text and blocks, with names escaped so they cannot mention or link", () => {
    const body = JSON.parse(renderBody({ event: "backup.failed", backup }, "slack", at, "https://vault.example.com"));
    expect(body.text).toBe(":x: Backup of *&lt;!channel&gt; shop &amp; co* failed: disk &lt;full&gt;");
    expect(body.blocks[1].elements[0].text).toBe("`backup.failed` at 2026-03-01T10:00:00.000Z · <https://vault.example.com/dashboard|Open DBVault>");
  });

  test("pitr.gap: the database, the gap's bounds and why, as JSON and for Slack", () => {
    const gap = {
      databaseId: "d1",
      databaseName: "shop",
      from: { ts: "150,1", at: "1970-01-01T00:02:30.000Z" },
      to: { ts: "900,1", at: "1970-01-01T00:15:00.000Z" },
      reason: "rollover" as const,
    };
    expect(JSON.parse(renderBody({ event: "pitr.gap", gap }, "json", at, "https://x"))).toEqual({
      event: "pitr.gap",
      occurredAt: "2026-03-01T10:00:00.000Z",
      gap,
    });
    expect(JSON.parse(renderBody({ event: "pitr.gap", gap }, "slack", at, "https://x")).text).toBe(
      ":warning: Point-in-time recovery of *shop* has a gap from 1970-01-01T00:02:30.000Z to 1970-01-01T00:15:00.000Z (rollover): take a full backup now.",
    );
  });

  test("pitr.lag: the database and how far behind, as JSON and for Slack", () => {
    const lag = { databaseId: "d1", databaseName: "shop", seconds: 420 };
    expect(JSON.parse(renderBody({ event: "pitr.lag", lag }, "json", at, "https://x"))).toEqual({
      event: "pitr.lag",
      occurredAt: "2026-03-01T10:00:00.000Z",
      lag,
    });
    expect(JSON.parse(renderBody({ event: "pitr.lag", lag }, "slack", at, "https://x")).text).toBe(
      ":hourglass: Point-in-time recovery of *shop* is 420 s behind: its agent cannot ship the oplog fast enough, or cannot reach DBVault.",
    );
  });

  test("copy.missing, copy.changed and copy.unreachable: the copies as JSON; for Slack, how many, of which databases, in which buckets", () => {
    const copy = { backupId: "b1", databaseName: "shop", destination: "s3://acme/dbvault/?region=eu", key: "dbvault/shop/f", detail: "gone (NoSuchKey)" };
    expect(JSON.parse(renderBody({ event: "copy.missing", copies: [copy] }, "json", at, "https://x"))).toEqual({
      event: "copy.missing",
      occurredAt: "2026-03-01T10:00:00.000Z",
      copies: [copy],
    });
    expect(JSON.parse(renderBody({ event: "copy.missing", copies: [copy] }, "slack", at, "https://x")).text).toBe(
      ":rotating_light: A backup copy of *shop* gone from s3://acme/dbvault/: check who can write to the bucket.",
    );
    const other = { ...copy, backupId: "b2", databaseName: "<orders>" };
    expect(JSON.parse(renderBody({ event: "copy.changed", copies: [copy, other] }, "slack", at, "https://x")).text).toBe(
      ":rotating_light: 2 backup copies of *shop*, *&lt;orders&gt;* changed in s3://acme/dbvault/: check who can write to the bucket.",
    );
    expect(JSON.parse(renderBody({ event: "copy.unreachable", copies: [copy, other] }, "slack", at, "https://x")).text).toBe(
      ":warning: 2 backup copies of *shop*, *&lt;orders&gt;* unchecked for a day: no answer from s3://acme/dbvault/. Check that the bucket exists and that the agent's credentials for it work.",
    );
  });

  test("the signature is sha256= and the hex HMAC-SHA256 of the exact body", () => {
    const body = renderBody({ event: "agent.online", agent: { id: "a", name: "web", hostname: null, status: "active" } }, "json", at, "https://x");
    expect(signBody("whsec_k", body)).toBe(`sha256=${createHmac("sha256", "whsec_k").update(body).digest("hex")}`);
    expect(signBody("whsec_k", `${body} `)).not.toBe(signBody("whsec_k", body));
  });
});
