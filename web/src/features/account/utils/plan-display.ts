// The Billing & Plan tab's figures (spec 2, 5 and 9): storage bar, plan card lines, which plans
// the user may switch to.
import { formatBytes } from "@protocol/format";
import { formatDatabaseLimit, formatFrequency, formatPlanPrice, formatRetention } from "../../../lib/plan-format";

export { formatPlanPrice };

const WARN_PERCENT = 70;
const DANGER_PERCENT = 90;

/** Storage used as a percentage of the limit, 0 to 100. */
export function computeStoragePercent(used: number, limit: number): number {
  if (!(limit > 0)) return used > 0 ? 100 : 0;
  return Math.min(100, Math.max(0, (used / limit) * 100));
}

/** The bar's colour: red above 90 percent, amber above 70, otherwise green. */
export function storageBarTone(percent: number): "red" | "amber" | "green" {
  if (percent > DANGER_PERCENT) return "red";
  if (percent > WARN_PERCENT) return "amber";
  return "green";
}

/** The lines of a plan card: databases ('Unlimited' above 500), storage, retention, frequency. */
export function describePlanLimits(plan: { dbLimit: number; storageLimit: number; retentionLimit: number; frequencyLimit: number }): string[] {
  const databases = formatDatabaseLimit(plan.dbLimit);
  return [
    databases === "Unlimited" ? "Unlimited databases" : databases,
    `${formatBytes(plan.storageLimit)} storage`,
    `${formatRetention(plan.retentionLimit)} retention`,
    `${formatFrequency(plan.frequencyLimit)} backups`,
  ];
}

/** Only free plans (price 0) can be switched to by the user. */
export function canSwitchToPlan(plan: { price: number }): boolean {
  return plan.price === 0;
}
