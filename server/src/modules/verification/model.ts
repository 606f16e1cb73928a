import { t } from "elysia";

export const verificationAnswers = {
  verificationRequested: t.Object({
    message: t.String(),
    waitingFor: t.Optional(t.String({ description: "Present when no agent that can read the backup is online: why it waits" })),
  }),
};
