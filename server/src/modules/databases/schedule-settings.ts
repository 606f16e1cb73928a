// A database's own schedule as Settings → Databases sets it (PUT /api/settings/databases/:id/schedule):
// validated, held to the plan's frequency limit, then its next slot moved.
import { eq } from "drizzle-orm";
import { databases, settings } from "@db/schema";
import { FREQUENCY_HOURS, type FrequencyWord, isFrequencyAllowed } from "@protocol/schedule";
import type { AppContext } from "../../context";
import { AppError, badRequest } from "../../lib/errors";
import type { CurrentOrganization } from "../organizations/current-organization";
import { planOfUser } from "../plans/service";
import { rescheduleDatabase } from "./schedule";
import { findOrganizationDatabase, listDatabases } from "./service";
import { inWindow, parseTimeOfDay } from "./slots";

export type ScheduleInput = { frequency: string | null; timeOfDay: string | null; windowStart: string | null; windowEnd: string | null };

function timeField(name: string, value: string | null) {
  if (value === null) return null;
  const minutes = parseTimeOfDay(value);
  if (minutes === null) throw badRequest(`${name} must be a time of day as HH:MM (00:00 to 23:59, UTC)`);
  return minutes;
}

export async function setDatabaseSchedule(ctx: AppContext, organization: CurrentOrganization, databaseId: string, input: ScheduleInput) {
  const database = await findOrganizationDatabase(ctx, organization.id, databaseId);
  if (input.frequency !== null && !(input.frequency in FREQUENCY_HOURS)) throw badRequest("frequency must be hourly, daily, weekly, monthly or null");
  const timeOfDay = timeField("timeOfDay", input.timeOfDay);
  const windowStart = timeField("windowStart", input.windowStart);
  const windowEnd = timeField("windowEnd", input.windowEnd);
  if ((windowStart === null) !== (windowEnd === null)) throw badRequest("windowStart and windowEnd go together: give both or neither");
  if (windowStart !== null && windowStart === windowEnd) throw badRequest("The backup window must not start and end at the same time");
  const window = windowStart !== null ? { start: windowStart, end: windowEnd! } : null;
  if (timeOfDay !== null && window && !inWindow({ everyHours: 24, timeOfDay, window }, timeOfDay * 60_000)) {
    throw badRequest("timeOfDay must fall inside the backup window");
  }
  const [account] = await ctx.db.select({ frequency: settings.frequency }).from(settings).where(eq(settings.organizationId, organization.id));
  const plan = await planOfUser(ctx.db, organization.planId);
  const frequencyHours = input.frequency === null ? null : FREQUENCY_HOURS[input.frequency as FrequencyWord];
  if (frequencyHours !== null && !isFrequencyAllowed(frequencyHours, plan)) {
    throw new AppError(
      403,
      "PLAN_LIMIT",
      `Your ${plan.name} plan does not allow ${input.frequency} backups. Choose a less frequent schedule or upgrade your plan.`,
    );
  }
  const changed = { scheduleFrequencyHours: frequencyHours, scheduleTimeOfDay: timeOfDay, scheduleWindowStart: windowStart, scheduleWindowEnd: windowEnd };
  await ctx.db.update(databases).set(changed).where(eq(databases.id, database.id));
  await rescheduleDatabase(ctx, { ...database, ...changed }, account?.frequency);
  return listDatabases(ctx, organization.id);
}
