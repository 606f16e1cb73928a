import { t } from "elysia";
import { backupCopyStatuses } from "@db/schema";
import { isoDate, nullable, oneOf } from "../../lib/schema";

/** One copy of a backup file in the customer's own bucket. */
export const copyAnswer = t.Object({
  destination: t.String({ description: "The customer's bucket: s3://bucket/prefix/?endpoint=…&region=… (never a credential)" }),
  key: t.String(),
  status: oneOf(backupCopyStatuses, "status"),
  size: nullable(t.Number()),
  sha256: nullable(t.String()),
  error: nullable(t.String({ description: "Why it could not be written, what the check found wrong, or why the bucket could not be checked" })),
  checkedAt: nullable(isoDate()),
  lockedUntil: nullable(isoDate()),
});

export const copiesModel = {
  copiesQuery: t.Object({ databaseName: t.String({ minLength: 1, maxLength: 64, error: "databaseName is required" }) }),
};

export const copiesAnswers = {
  databaseCopies: t.Object({
    databaseName: t.String(),
    copies: t.Array(t.Composite([t.Object({ backupId: t.String(), backupCreatedAt: isoDate() }), copyAnswer]), {
      description: "Each backup's copies in the customer's buckets, newest backup first (up to 500)",
    }),
  }),
};
