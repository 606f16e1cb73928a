// The user's backup, retention and notification settings (GET /api/settings).
import { useQuery } from "@tanstack/react-query";
import { answerOf } from "../../../lib/api-client";
import { getSettingsRequest } from "./settings-api";

export const settingsQueryKey = ["settings"] as const;

export function useSettings() {
  return useQuery({ queryKey: settingsQueryKey, queryFn: () => answerOf(getSettingsRequest()) });
}
