import { t } from "elysia";

/** A plan as the catalogue shows it (storage in bytes, retention and frequency in hours). */
export const planAnswer = t.Object({
  _id: t.String(),
  id: t.String(),
  name: t.String(),
  price: t.Number({ description: "Per month" }),
  popular: t.Boolean(),
  storageLimit: t.Number(),
  dbLimit: t.Integer(),
  retentionLimit: t.Integer(),
  frequencyLimit: t.Integer(),
  pitrWindowHours: t.Integer({ description: "How far back point-in-time recovery reaches, in hours (0: not offered)" }),
  features: t.Array(t.Object({ text: t.String() })),
});

export const planAnswers = { list: t.Array(planAnswer) };
