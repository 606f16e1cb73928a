import { t } from "elysia";
import { agentRoles, agentStatuses, agentUpdateStatuses } from "@db/schema";
import { DatabaseEntry, RegisterResponse, UploadStatus } from "@protocol/agent-protocol";
import { isoDate, messageAnswer, nullable, oneOf } from "../../lib/schema";
import { passwordField } from "../auth/model";
import { givenCode } from "../reauthentication/model";

export const agentsModel = {
  manageParams: t.Object({ agentId: t.String({ minLength: 1, maxLength: 64 }) }),
  manage: t.Object({ action: oneOf(["restart", "update", "reset"] as const, "action must be restart, update or reset") }),
  rename: t.Object({
    name: t.String({ minLength: 1, maxLength: 100, pattern: "\\S", error: "name must be 1 to 100 characters, not only spaces" }),
  }),
  setupApproval: t.Object({
    setupCode: t.String({ minLength: 1, maxLength: 32, error: "setupCode must be the code dbvault-agent setup --force showed" }),
    password: t.Optional(passwordField),
    code: givenCode,
  }),
  backupParams: t.Object({ backupId: t.String({ minLength: 1, maxLength: 64 }) }),
  jobParams: t.Object({ jobId: t.String({ minLength: 1, maxLength: 64 }) }),
  partParams: t.Object({
    backupId: t.String({ minLength: 1, maxLength: 64 }),
    partNumber: t.Numeric({ multipleOf: 1, minimum: 0, maximum: 99_999, error: "partNumber must be a whole number from 0" }),
  }),
};

const healthAnswer = t.Object({
  ok: t.Boolean(),
  status: t.String({ description: "ok or degraded" }),
  checks: t.Object({ database: t.Boolean(), storage: t.Boolean() }),
  time: isoDate(),
});

export const agentAnswer = t.Object({
  _id: t.String(),
  id: t.String(),
  name: t.String(),
  hostname: nullable(t.String()),
  platform: nullable(t.String()),
  version: nullable(t.String()),
  keyIds: nullable(t.Array(t.String(), { description: "Key ids (public fingerprints) of the agent's keyring; never a key" })),
  role: oneOf(agentRoles, "role"),
  identityRecipient: nullable(
    t.String({ description: "The age X25519 recipient a pasted identity is sealed to for this agent (public); null: too old to take one" }),
  ),
  status: oneOf(agentStatuses, "status"),
  lastSeen: nullable(isoDate()),
  lastUpdate: nullable(
    t.Object({
      status: oneOf(agentUpdateStatuses, "update status"),
      message: t.String(),
      version: nullable(t.String({ description: "The version installed or found" })),
      at: nullable(isoDate()),
    }),
  ),
});

/** The agent protocol's answers are the protocol's own schemas (protocol/agent-protocol.ts). */
export const agentAnswers = {
  registered: RegisterResponse,
  account: t.Object({ name: t.String({ description: "The account's name, for setup to greet" }) }),
  databases: t.Object({ databases: t.Array(DatabaseEntry) }),
  uploadStatus: UploadStatus,
  partStored: t.Object({ partNumber: t.Integer(), size: t.Integer() }),
  completed: t.Object({ status: t.Literal("completed"), size: t.Integer(), sha256: t.String() }),
  failed: t.Object({ status: t.Literal("failed") }),
  jobTaken: t.Object({ status: t.Literal("taken") }),
  health: healthAnswer,
  systemStatus: t.Object({
    agents: t.Array(agentAnswer),
    backupService: t.Boolean(),
    install: t.Object(
      {
        mark: t.String({ description: "Goes in the checklist's install command (?for=) so that its steps are seen" }),
        scriptFetchedAt: nullable(isoDate()),
        downloadedAt: nullable(isoDate()),
      },
      { description: "How far the onboarding checklist's install command got" },
    ),
  }),
  message: messageAnswer,
};
