// Backup schedule and retention choices, shared by the server (validation) and the web app
// (which options to offer), so both apply the same plan rules.

export const FREQUENCY_HOURS = { hourly: 1, daily: 24, weekly: 168, monthly: 720 } as const;
export type FrequencyWord = keyof typeof FREQUENCY_HOURS;
export const FREQUENCY_WORDS = Object.keys(FREQUENCY_HOURS) as FrequencyWord[];

/** Retention choices in hours: 3, 7, 14, 30, 90 and 180 days. */
export const RETENTION_OPTIONS_HOURS = [72, 168, 336, 720, 2160, 4320] as const;
export const DEFAULT_RETENTION_HOURS = 72;
export const DEFAULT_FREQUENCY_HOURS = 24;

/** Stored hours as the API reports them: 1, 24, 168 or 720; anything else reads as daily. */
export function normaliseFrequencyHours(hours: number): number {
  return (Object.values(FREQUENCY_HOURS) as number[]).includes(hours) ? hours : FREQUENCY_HOURS.daily;
}

export function frequencyWordOf(hours: number): FrequencyWord {
  const entry = Object.entries(FREQUENCY_HOURS).find(([, h]) => h === normaliseFrequencyHours(hours));
  return entry![0] as FrequencyWord;
}

export type PlanLimits = { frequencyLimit: number; retentionLimit: number; dbLimit: number; storageLimit: number };

/** A plan's frequencyLimit is the shortest interval it allows: backing up more often is beyond it. */
export function isFrequencyAllowed(hours: number, plan: Pick<PlanLimits, "frequencyLimit">): boolean {
  return hours >= plan.frequencyLimit;
}

/** A plan's retentionLimit is the longest time it keeps a backup: keeping longer is beyond it. */
export function isRetentionAllowed(hours: number, plan: Pick<PlanLimits, "retentionLimit">): boolean {
  return hours <= plan.retentionLimit;
}

/** The closest frequency the plan allows, never more frequent than asked. */
export function clampFrequency(hours: number, plan: Pick<PlanLimits, "frequencyLimit">): number {
  if (isFrequencyAllowed(hours, plan)) return hours;
  const allowed = Object.values(FREQUENCY_HOURS).filter((h) => isFrequencyAllowed(h, plan));
  return allowed.length > 0 ? Math.min(...allowed) : FREQUENCY_HOURS.monthly;
}

/** The closest retention the plan allows, never longer than asked. */
export function clampRetention(hours: number, plan: Pick<PlanLimits, "retentionLimit">): number {
  if (isRetentionAllowed(hours, plan)) return hours;
  const allowed = RETENTION_OPTIONS_HOURS.filter((h) => isRetentionAllowed(h, plan));
  return allowed.length > 0 ? Math.max(...allowed) : RETENTION_OPTIONS_HOURS[0];
}

/** Largest counts a GFS retention may keep: about three months of days, two years of weeks, ten years of months. */
export const GFS_LIMITS = { daily: 90, weekly: 104, monthly: 120 } as const;
export const DEFAULT_GFS = { daily: 7, weekly: 4, monthly: 6 } as const;
