import type { ApiTokenScope, MemberRole } from "@db/schema";

// Who may call each operation, for /api/docs (lib/api-document.ts): the security schemes (a
// session, an API token, the account's API key, an agent's own credentials, the metrics token)
// and, for each operation whose controller does not declare it, the requirement it enforces. An
// operation that is in neither stays without one, and the API description test names it.
// TOKEN_SCOPE_BY_OPERATION is also what the auth guard enforces for API tokens (auth/guard.ts).

export const securitySchemes = {
  bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "A session token (POST /api/auth/login), as the web app sends it" },
  apiToken: {
    type: "http",
    scheme: "bearer",
    description:
      "An API token (Profile → Security → API tokens), as Authorization: Bearer dbvp_…; the operation's requirement names the scope it needs. Operations without one refuse tokens",
  },
  apiKey: {
    type: "http",
    scheme: "bearer",
    description:
      "The account's API key (Settings → Security), as Authorization: Bearer <key>: it only registers agents (dbvault-agent setup) and checks itself",
  },
  agentId: {
    type: "apiKey",
    in: "header",
    name: "X-Agent-Id",
    description: "The registered agent's id (with its token; an API key sent alongside is ignored)",
  },
  agentToken: {
    type: "apiKey",
    in: "header",
    name: "X-Agent-Token",
    description: "The registered agent's own token (dbvt_…), shown to it once at registration",
  },
  metricsToken: { type: "http", scheme: "bearer", description: "METRICS_TOKEN, for Prometheus (without it /metrics answers 404)" },
} as const;

type Requirement = Partial<Record<keyof typeof securitySchemes, string[]>>;

const PUBLIC: Requirement[] = [];
const SESSION: Requirement[] = [{ bearer: [] }];
const API_KEY: Requirement[] = [{ apiKey: [] }];
// An agent set up runs on its own id and token: the API key is not needed (agent-link/agent-auth.ts).
const AGENT: Requirement[] = [{ agentId: [], agentToken: [] }];

const BY_OPERATION: Record<string, Requirement[]> = {
  "POST /api/auth/register": PUBLIC,
  "POST /api/auth/login": PUBLIC,
  "POST /api/auth/forgot-password": PUBLIC,
  "GET /api/auth/reset-password/{token}": PUBLIC,
  "POST /api/auth/reset-password/{token}": PUBLIC,
  "POST /api/auth/logout": SESSION,
  // Signing in with SSO: the provider's checks (state, PKCE, ID token) and the one-time code are the credentials.
  "POST /api/auth/sso/start": PUBLIC,
  "GET /api/auth/sso/callback": PUBLIC,
  "POST /api/auth/sso/exchange": PUBLIC,
  // The link e-mailed to the new address (confirm) or the old one (undo) is the credential.
  "POST /api/auth/email-change/confirm/{token}": PUBLIC,
  "POST /api/auth/email-change/undo/{token}": PUBLIC,
  // The invitation link is the credential for its preview; accepting needs the invited account.
  "GET /api/invitations/{token}": PUBLIC,
  "GET /api/settings/plans": PUBLIC,
  "GET /api/agents/server-status": PUBLIC,
  "GET /api/kb/": PUBLIC,
  "GET /api/kb/categories": PUBLIC,
  "GET /api/kb/tags": PUBLIC,
  // Drafts too with an admin's session; published articles for anyone.
  "GET /api/kb/{slug}": [{}, { bearer: [] }],
  "GET /install.sh": PUBLIC,
  "GET /install.ps1": PUBLIC,
  "GET /downloads/{file}": PUBLIC,
  "GET /api/agent/releases": PUBLIC,
  "POST /api/agent/register": API_KEY,
  "GET /api/agent/check-key": API_KEY,
  // The browser's socket takes the session token in its first message.
  "WS /api/ws": SESSION,
  "WS /api/agents/ws": AGENT,
  "GET /api/settings/system-status": SESSION,
  "POST /api/agents/manage/{agentId}": SESSION,
  "DELETE /api/agents/{agentId}": SESSION,
  "PATCH /api/agents/{agentId}": SESSION,
  "POST /api/agents/{agentId}/setup-approval": SESSION,
  "GET /metrics": [{ metricsToken: [] }],
};

/** The security requirement of an operation its controller left undeclared; undefined when unknown. */
export function securityOf(method: string, path: string): Requirement[] | undefined {
  const listed = BY_OPERATION[`${method.toUpperCase()} ${path}`];
  if (listed) return listed;
  // Every other call of the agent protocol is a registered agent's.
  if (path.startsWith("/api/agent/")) return AGENT;
  return undefined;
}

/**
 * The scope an API token needs for each operation (method and path as in /api/docs). Operations
 * not listed refuse tokens: signing in and out, the account's own security (password, two-factor,
 * e-mail, API key, API tokens themselves), the plan, sockets and the agent protocol. A token
 * acts as its creator, so admin-console operations also need the creator to be an admin.
 */
const TOKEN_SCOPE_BY_OPERATION: Record<string, ApiTokenScope> = {
  // read: what the dashboard, histories and audit log show; nothing secret, no download.
  "GET /api/user/plan": "read",
  "GET /api/user/audit-logs": "read",
  "GET /api/user/audit-actions": "read",
  "GET /api/audit/export": "read",
  "GET /api/settings/": "read",
  "GET /api/settings/retention-preview": "read",
  "GET /api/settings/databases": "read",
  "GET /api/settings/system-status": "read",
  "GET /api/backups/": "read",
  "GET /api/backups/summary": "read",
  "GET /api/backups/copies": "read",
  "GET /api/backups/{id}": "read",
  "GET /api/backups/restores/all": "read",
  "GET /api/pitr/databases/{databaseId}/timeline": "read",
  "GET /api/pitr/databases/{databaseId}/slices": "read",
  "GET /api/organizations/": "read",
  "GET /api/organizations/current": "read",
  "GET /api/organizations/current/members": "read",
  // backup: make backups, check them and fetch their (encrypted) files.
  "POST /api/backups/": "backup",
  "POST /api/backups/{id}/verify": "backup",
  "POST /api/backups/{id}/anomaly/resolve": "backup",
  "PUT /api/backups/{id}/keep": "backup",
  "PUT /api/backups/{id}/label": "backup",
  "GET /api/backups/{id}/download": "backup",
  "GET /api/pitr/databases/{databaseId}/slices/{sliceId}/download": "backup",
  "GET /api/pitr/databases/{databaseId}/slices/archive": "backup",
  // restore: restores and restore drills.
  "POST /api/backups/{id}/restore": "restore",
  "GET /api/backups/{id}/restore-connections": "restore",
  "POST /api/drills/": "restore",
  // admin: settings, databases, agents, webhooks, deleting backups; the admin console and
  // knowledge-base editing when the creator is an admin.
  "PUT /api/settings/": "admin",
  "PUT /api/settings/databases/{id}": "admin",
  "PUT /api/settings/databases/{id}/agent": "admin",
  "PUT /api/settings/databases/{id}/schedule": "admin",
  "PUT /api/pitr/databases/{databaseId}": "admin",
  "POST /api/settings/test-notification": "admin",
  "GET /api/settings/webhooks/": "admin",
  "POST /api/settings/webhooks/": "admin",
  "DELETE /api/settings/webhooks/{id}": "admin",
  "GET /api/settings/webhooks/{id}/deliveries": "admin",
  "POST /api/settings/webhooks/{id}/test": "admin",
  "POST /api/agents/manage/{agentId}": "admin",
  "PATCH /api/agents/{agentId}": "admin",
  "DELETE /api/agents/{agentId}": "admin",
  "DELETE /api/backups/{id}": "admin",
  // Members and invitations of the organization the token acts in (X-Organization-Id), within its
  // creator's role there. Creating, deleting, leaving and handing over an organization, and
  // accepting an invitation, change who holds one: sessions only, as tokens cannot manage tokens.
  "PATCH /api/organizations/current": "admin",
  "PATCH /api/organizations/current/members/{userId}": "admin",
  "DELETE /api/organizations/current/members/{userId}": "admin",
  "GET /api/organizations/current/invitations": "admin",
  "POST /api/organizations/current/invitations": "admin",
  "DELETE /api/organizations/current/invitations/{id}": "admin",
  // The organization's single sign-on; its creator must be an owner (ROLE_BY_OPERATION).
  "GET /api/organizations/current/sso/": "admin",
  "PUT /api/organizations/current/sso/": "admin",
  "DELETE /api/organizations/current/sso/": "admin",
  "POST /api/organizations/current/sso/domains/verify": "admin",
  "GET /api/kb/admin/all": "admin",
  "POST /api/kb/": "admin",
  "PUT /api/kb/{id}": "admin",
  "DELETE /api/kb/{id}": "admin",
  "GET /api/admin/users": "admin",
  "GET /api/admin/organizations": "admin",
  "PUT /api/admin/organizations/{id}/plan": "admin",
  "GET /api/admin/stats/backups": "admin",
  "GET /api/admin/stats/storage": "admin",
  "GET /api/admin/plans": "admin",
  "GET /api/admin/users/{id}/agents": "admin",
  "PUT /api/admin/users/{id}": "admin",
  "DELETE /api/admin/users/{id}": "admin",
  "PUT /api/admin/users/{id}/ban": "admin",
  "DELETE /api/admin/users/{id}/two-factor": "admin",
  "DELETE /api/admin/agents/{id}": "admin",
};

const operationKey = (method: string, path: string) => `${method.toUpperCase()} ${path.replace(/:(\w+)/g, "{$1}")}`;

/**
 * The scope an API token needs for an operation, or undefined when tokens may not call it.
 * `path` is the route as declared (`/api/backups/:id`) or as documented (`/api/backups/{id}`).
 */
export function tokenScopeOf(method: string, path: string): ApiTokenScope | undefined {
  return TOKEN_SCOPE_BY_OPERATION[operationKey(method, path)];
}

// The least role in the current organization each operation needs (db/schema/organizations.ts
// says what each role adds). A scope stands for the role that may do what it allows; the owner's
// own operations and those tokens may not call are listed on their own.
const ROLE_BY_SCOPE: Record<ApiTokenScope, MemberRole> = { read: "viewer", backup: "operator", restore: "operator", admin: "admin" };

const ROLE_BY_OPERATION: Record<string, MemberRole> = {
  // Owners: the plan (and billing), backup protection on and off (it guards the backups against
  // everyone else, admins included), deleting a team and handing its ownership over.
  "PUT /api/user/plan": "owner",
  "DELETE /api/organizations/current": "owner",
  "POST /api/organizations/current/transfer": "owner",
  "POST /api/settings/backup-protection/": "owner",
  "POST /api/settings/backup-protection/turn-off": "owner",
  "DELETE /api/settings/backup-protection/turn-off": "owner",
  // The organization's single sign-on: who may sign in to it, and as what.
  "GET /api/organizations/current/sso/": "owner",
  "PUT /api/organizations/current/sso/": "owner",
  "DELETE /api/organizations/current/sso/": "owner",
  "POST /api/organizations/current/sso/domains/verify": "owner",
  // Admins: the API key that registers agents into the organization, and letting a machine
  // register an existing agent again without its credentials (sessions only).
  "POST /api/settings/regenerate-api-key": "admin",
  "POST /api/agents/{agentId}/setup-approval": "admin",
  // Operators: restoring to a point in time (sessions only).
  "GET /api/restores/point-in-time/plan": "operator",
  "POST /api/restores/point-in-time/": "operator",
};

/**
 * The least role an operation needs in the organization a request acts in; the auth guard refuses
 * any less (auth/guard.ts), and the web app hides what the member's role cannot do from the same
 * table. The admin console and knowledge-base editing are the server administrators' (checked on
 * `users.role`), whatever their role in the organization they are looking at; the account's own
 * pages (profile, password, two-factor, its tokens) are every member's.
 */
export function leastRoleOf(method: string, path: string): MemberRole {
  const key = operationKey(method, path);
  const listed = ROLE_BY_OPERATION[key];
  if (listed) return listed;
  const documented = key.split(" ")[1]!;
  if (documented.startsWith("/api/admin/") || documented.startsWith("/api/kb")) return "viewer";
  const scope = TOKEN_SCOPE_BY_OPERATION[key];
  return scope ? ROLE_BY_SCOPE[scope] : "viewer";
}
