// The signed-in user's organizations (the navbar's switcher) and the one calls act in with the
// caller's role there (what the screens show and hide), read by the navbar and every page.
import { useQuery } from "@tanstack/react-query";
import { useAtomValue } from "jotai";
import { type Answer, answerOf, api } from "../api-client";
import { chosenOrganizationAtom } from "../organization/chosen-organization";
import { permissionsOf } from "../organization/permissions";

export const organizationsRequest = () => api.organizations.get();
export const currentOrganizationRequest = () => api.organizations.current.get();
export type Organization = Answer<typeof organizationsRequest>[number];

export const organizationsQueryKey = ["organizations"] as const;
export const currentOrganizationQueryKey = ["organizations", "current"] as const;

export function useMyOrganizations(enabled = true) {
  return useQuery({ queryKey: organizationsQueryKey, queryFn: () => answerOf(organizationsRequest()), enabled });
}

/** The organization calls act in, with the caller's role and what it permits. */
export function useCurrentOrganization() {
  // The choice is in the key, so switching never shows the other organization's role.
  const choice = useAtomValue(chosenOrganizationAtom);
  const query = useQuery({
    queryKey: [...currentOrganizationQueryKey, choice?.organizationId ?? "personal"],
    queryFn: () => answerOf(currentOrganizationRequest()),
  });
  // Until the role is known: everything in the personal organization (one person's app, as it
  // always was), nothing beyond reading in a team (no control a viewer cannot use flashes by).
  const role = query.data?.role ?? (choice ? "viewer" : null);
  return { organization: query.data ?? null, permissions: permissionsOf(role), error: query.error };
}
