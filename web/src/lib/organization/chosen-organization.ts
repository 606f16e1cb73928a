// The organization chosen in the navbar's switcher: every API call names it (X-Organization-Id)
// and the server checks it against the memberships on each request. None chosen: the account's
// personal organization. Kept in storage with the account that chose it, so another account
// signing in on this browser starts in its own.
import { atom } from "jotai";
import { ORGANIZATION_STORAGE_KEY } from "../../config/constants";
import { sessionAtom, sessionStore } from "../auth/session-store";
import { queryClient } from "../query-client";

type Choice = { userId: string; organizationId: string };

function storage(): Storage | null {
  try {
    return typeof window === "undefined" ? null : window.localStorage;
  } catch {
    return null;
  }
}

function readStoredChoice(): Choice | null {
  try {
    const parsed = JSON.parse(storage()?.getItem(ORGANIZATION_STORAGE_KEY) ?? "null") as Partial<Choice> | null;
    return typeof parsed?.userId === "string" && typeof parsed.organizationId === "string" ? (parsed as Choice) : null;
  } catch {
    return null;
  }
}

/** The stored choice; null means the personal organization. */
export const chosenOrganizationAtom = atom<Choice | null>(readStoredChoice());

/** The organization id calls name, or null (personal) when none was chosen by the signed-in account. */
export function chosenOrganizationId(): string | null {
  const choice = sessionStore.get(chosenOrganizationAtom);
  const userId = sessionStore.get(sessionAtom)?.user.id;
  return choice && userId && choice.userId === userId ? choice.organizationId : null;
}

/**
 * Switches every call (and the realtime socket) to `organizationId`, null for the personal one,
 * and drops every cached answer: they were the other organization's.
 */
export function chooseOrganization(organizationId: string | null) {
  const userId = sessionStore.get(sessionAtom)?.user.id;
  const choice = organizationId && userId && organizationId !== userId ? { userId, organizationId } : null;
  if (choice) storage()?.setItem(ORGANIZATION_STORAGE_KEY, JSON.stringify(choice));
  else storage()?.removeItem(ORGANIZATION_STORAGE_KEY);
  sessionStore.set(chosenOrganizationAtom, choice);
  // Reads keyed by one of the old organization's ids (a database's point-in-time timeline) go
  // first: a reset refetches every read on screen before React re-renders, and those would ask
  // the new organization for the old one's database (404). Their screens re-render without them.
  queryClient.removeQueries({ predicate: (query) => ID_KEYED_READS.has(String(query.queryKey[0])) });
  void queryClient.resetQueries();
}

/** The first part of the query keys that name an organization's own entity by id. */
const ID_KEYED_READS = new Set(["pitr-timeline"]);

/** Forgets the choice without refetching (sign-out clears the cache itself). */
export function forgetChosenOrganization() {
  storage()?.removeItem(ORGANIZATION_STORAGE_KEY);
  sessionStore.set(chosenOrganizationAtom, null);
}

/** The server says the caller is not a member of the organization named (removed, or the team deleted). */
export const isNotAMemberAnswer = (status: number, body: unknown) =>
  status === 403 && String((body as { message?: unknown } | null)?.message ?? "").startsWith("You are not a member of this organization.");
