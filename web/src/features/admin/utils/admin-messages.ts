// The admin console's error texts (spec 8), shown in red at the top of the page.

export const ADMIN_LOAD_ERRORS = {
  users: "Failed to fetch users",
  stats: "Failed to fetch stats",
  plans: "Failed to fetch plans",
  fallback: "Failed to load data",
} as const;

export const ADMIN_ACTION_ERRORS = {
  plan: "Failed to update plan",
  role: "Failed to update role",
  status: "Failed to update status",
  ban: "Failed to update ban status",
  email: "Failed to update email",
  deleteAgent: "Failed to delete agent",
  deleteUser: "Failed to delete user",
} as const;

/** A failure to show: the spec's text, and the server's own explanation when it gave one. */
export type AdminError = { message: string; detail: string | null };
