import { t } from "elysia";
import { protectionView } from "../backup-protection/model";
import { memberRoles, userRoles, userStatuses } from "@db/schema";
import { isoDate, messageAnswer, nullable, oneOf } from "../../lib/schema";
import { agentAnswer } from "../agents/model";
import { planAnswer } from "../plans/model";
import { emailField } from "../auth/model";

/** One side of the replicated storage (STORAGE_REPLICA_URL), as GET /api/admin/stats/storage shows it. */
const replicaSideAnswer = t.Object({
  ok: t.Boolean({ description: "Whether this side answers its health check now" }),
  problem: nullable(t.String()),
  missingObjects: t.Integer({ description: "Objects this side lacks (writes it missed since the last repair pass, or that pass could not copy)" }),
  failures: t.Integer({ description: "Operations this side missed while the other held, on this instance since it started" }),
});

export const adminModel = {
  idParams: t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) }),
  userUpdate: t.Object(
    {
      plan: t.Optional(t.String({ minLength: 1, maxLength: 64, error: "plan must be a plan id" })),
      role: t.Optional(oneOf(userRoles, "role must be user or admin")),
      status: t.Optional(oneOf(userStatuses, "status must be active or inactive")),
      email: t.Optional(emailField),
    },
    { minProperties: 1, error: "Send one of plan, role, status or email" },
  ),
  planUpdate: t.Object({
    pitrWindowHours: t.Integer({
      minimum: 0,
      maximum: 8760,
      error: "pitrWindowHours must be a whole number of hours from 0 (point-in-time recovery not offered) to 8760 (a year)",
    }),
  }),
  organizationPlan: t.Object({ plan: t.String({ minLength: 1, maxLength: 64, error: "plan must be a plan id" }) }),
  ban: t.Object({
    isBanned: t.Boolean({ error: "isBanned must be true or false" }),
    banReason: t.Optional(t.Union([t.String({ maxLength: 500 }), t.Null()], { error: "banReason must be text or null" })),
  }),
};

const adminUserAnswer = t.Object({
  _id: t.String(),
  id: t.String(),
  name: t.String(),
  email: t.String(),
  role: oneOf(userRoles, "role"),
  status: oneOf(userStatuses, "status"),
  isBanned: t.Boolean(),
  banReason: nullable(t.String()),
  bannedAt: nullable(isoDate()),
  plan: nullable(planAnswer),
  storageUsed: t.Number(),
  backupProtection: protectionView,
  createdAt: isoDate(),
});

const adminOrganizationAnswer = t.Object({
  id: t.String(),
  name: t.String(),
  personal: t.Boolean({ description: "Created with its founder's account (and deleted with it)" }),
  plan: nullable(planAnswer),
  storageUsed: t.Number({ description: "Bytes" }),
  members: t.Array(t.Object({ id: t.String(), name: t.String(), email: t.String(), role: oneOf(memberRoles, "role") })),
  createdAt: isoDate(),
});

export const adminAnswers = {
  organization: adminOrganizationAnswer,
  organizations: t.Array(adminOrganizationAnswer),
  user: adminUserAnswer,
  users: t.Array(adminUserAnswer),
  storageReplica: t.Object({ replica: nullable(t.Object({ primary: replicaSideAnswer, replica: replicaSideAnswer })) }),
  backupStats: t.Object({ totalCount: t.Integer(), totalSize: t.Number({ description: "Bytes" }), formattedSize: t.String() }),
  plans: t.Array(planAnswer),
  plan: planAnswer,
  agents: t.Array(agentAnswer),
  ban: t.Object({ isBanned: t.Boolean(), banReason: nullable(t.String()), bannedAt: nullable(isoDate()) }),
  message: messageAnswer,
};
