import { t } from "elysia";
import { isoDate, nullable } from "../../lib/schema";
import { passwordField, secondFactorField } from "../auth/model";

export const protectionModel = {
  /** The password and a code, unless the session re-authenticated in the last 10 minutes. */
  change: t.Object({ password: t.Optional(passwordField), code: t.Optional(secondFactorField) }),
};

export const protectionView = t.Object({
  state: t.Union([t.Literal("off"), t.Literal("on"), t.Literal("turning-off")]),
  enabledAt: nullable(isoDate()),
  offRequestedAt: nullable(isoDate()),
  offAt: nullable(t.String({ description: "ISO 8601: when a requested turn-off takes effect" })),
  waitDays: t.Integer({ description: "Days a turn-off waits before it takes effect" }),
});

export const protectionAnswers = {
  protection: protectionView,
  changed: t.Object({ message: t.String(), protection: protectionView }),
};

export type ProtectionView = typeof protectionView.static;
