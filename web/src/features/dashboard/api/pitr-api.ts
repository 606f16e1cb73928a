// A database's point-in-time recovery as the restore wizard reads it: its covered timeline, and
// what a restore to a moment would use (the server's dry run).
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { type Answer, answerOf, api } from "../../../lib/api-client";

export const timelineRequest = (databaseId: string) => api.pitr.databases({ databaseId }).timeline.get();
export const restorePlanRequest = (databaseId: string, at: string) => api.restores["point-in-time"].plan.get({ query: { databaseId, at } });
export type RestorePlan = Answer<typeof restorePlanRequest>;
/** The zip of the slices holding [from, to] (positions "t,i"), for an offline restore. */
export const sliceArchiveRequest = (databaseId: string, from: string, to: string) =>
  api.pitr.databases({ databaseId }).slices.archive.get({ query: { from, to } });

export function useTimeline(databaseId: string | null) {
  return useQuery({
    queryKey: ["pitr-timeline", databaseId],
    queryFn: () => answerOf(timelineRequest(databaseId!)),
    enabled: databaseId !== null,
  });
}

/** The plan for `at` (an ISO time), asked only for a moment the picker accepts. */
export function useRestorePlan(databaseId: string | null, at: string | null) {
  return useQuery({
    queryKey: ["pitr-plan", databaseId, at],
    queryFn: () => answerOf(restorePlanRequest(databaseId!, at!)),
    enabled: databaseId !== null && at !== null,
    placeholderData: keepPreviousData,
    retry: false,
  });
}
