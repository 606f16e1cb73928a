import type { PlanFeature } from "@db/schema";

const GiB = 1024 ** 3;

/** The plans created on first start. Limits: frequencyLimit is the shortest interval between
 * backups the plan allows (hours), retentionLimit the longest a backup may be kept (hours). A new
 * account keeps backups DEFAULT_RETENTION_HOURS (3 days) until it chooses longer, so the feature
 * texts say "up to" the limit rather than promise it. */
export const defaultPlans: {
  name: string;
  price: number;
  popular: boolean;
  storageLimit: number;
  dbLimit: number;
  retentionLimit: number;
  frequencyLimit: number;
  pitrWindowHours: number;
  features: PlanFeature[];
  sortOrder: number;
}[] = [
  {
    name: "Free",
    price: 0,
    popular: false,
    storageLimit: 1 * GiB,
    dbLimit: 1,
    retentionLimit: 168,
    frequencyLimit: 24,
    pitrWindowHours: 0,
    sortOrder: 0,
    features: [
      { text: "AES-256 encryption at the source" },
      { text: "Daily scheduled backups" },
      { text: "Backups kept up to 7 days" },
      { text: "Restore or download with one click" },
    ],
  },
  {
    name: "Starter",
    price: 9,
    popular: false,
    storageLimit: 20 * GiB,
    dbLimit: 3,
    retentionLimit: 720,
    frequencyLimit: 24,
    pitrWindowHours: 24,
    sortOrder: 1,
    features: [{ text: "Everything in Free" }, { text: "Up to 3 databases" }, { text: "Backups kept up to 30 days" }, { text: "E-mail alerts on failure" }],
  },
  {
    name: "Pro",
    price: 29,
    popular: true,
    storageLimit: 200 * GiB,
    dbLimit: 10,
    retentionLimit: 2160,
    frequencyLimit: 1,
    pitrWindowHours: 168,
    sortOrder: 2,
    features: [{ text: "Everything in Starter" }, { text: "Hourly backups" }, { text: "Backups kept up to 3 months" }, { text: "Audit logs" }],
  },
  {
    name: "Business",
    price: 99,
    popular: false,
    storageLimit: 2048 * GiB,
    dbLimit: 1000,
    retentionLimit: 4320,
    frequencyLimit: 1,
    pitrWindowHours: 720,
    sortOrder: 3,
    features: [{ text: "Everything in Pro" }, { text: "Unlimited databases" }, { text: "Backups kept up to 6 months" }, { text: "Priority support" }],
  },
];
