// Who may call each operation, for /api/docs (lib/api-document.ts): the security schemes (a
// session, the account's API key, an agent's own credentials, the metrics token) and, for each
// operation whose controller does not declare it, the requirement it enforces. An operation that
// is in neither stays without one, and the API description test names it.

export const securitySchemes = {
  bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "A session token (POST /api/auth/login), as the web app sends it" },
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
  // The link e-mailed to the new address (confirm) or the old one (undo) is the credential.
  "POST /api/auth/email-change/confirm/{token}": PUBLIC,
  "POST /api/auth/email-change/undo/{token}": PUBLIC,
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
