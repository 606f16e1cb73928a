// The signed-in user's profile (with the API key), read by the session, the profile page and
// Settings' security tab.
import { type QueryClient, useQuery } from "@tanstack/react-query";
import { type Answer, answerOrLog, api } from "../api-client";

export const profileRequest = () => api.user.profile.get();
export type Profile = Answer<typeof profileRequest>;

export const profileQueryKey = ["user", "profile"] as const;
/** The one definition of this read: every screen that shows it uses these options. */
export const profileQuery = { queryKey: profileQueryKey, queryFn: () => answerOrLog("failed to fetch profile", profileRequest()) };

/** A change the server accepted (a new name, API key, ...) written into the cached profile. */
export const mergeIntoProfile = (queryClient: QueryClient, changes: Partial<Profile>) =>
  queryClient.setQueryData<Profile>(profileQueryKey, (current) => (current ? { ...current, ...changes } : current));

export function useProfile() {
  return useQuery(profileQuery);
}
