// Where a webhook may point, and how a delivery reaches it. A webhook URL is the user's to choose,
// so without care it would let anyone make the server call its own network (the cloud metadata
// service, the database, an admin port). Unless WEBHOOK_ALLOW_PRIVATE=true: https only, and every
// address the name resolves to must be public, checked at each delivery (a name can change), and
// the request goes to the very address checked (pinned, with the name kept for TLS and Host), so
// a second DNS answer cannot swap in a private one. Redirects are never followed.
import { lookup as dnsLookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";
import { nonPublicRange } from "./public-address";

/** A webhook URL or address the server refuses; the message is for the user. */
export class WebhookTargetError extends Error {
  override name = "WebhookTargetError";
}

export const MAX_URL_LENGTH = 2048;

type Policy = { allowPrivate: boolean };

/** Checks a webhook URL's form (scheme, no credentials, no forbidden literal address); throws WebhookTargetError. */
export function parseWebhookUrl(raw: string, policy: Policy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookTargetError("The webhook URL is not a valid URL. Enter a full address such as https://hooks.example.com/dbvault.");
  }
  if (raw.length > MAX_URL_LENGTH) throw new WebhookTargetError(`The webhook URL is too long (at most ${MAX_URL_LENGTH} characters).`);
  const schemes = policy.allowPrivate ? ["https:", "http:"] : ["https:"];
  if (!schemes.includes(url.protocol)) throw new WebhookTargetError("The webhook URL must start with https://.");
  if (url.username || url.password) {
    throw new WebhookTargetError("The webhook URL must not contain a user name or password; put a token in its path or query instead.");
  }
  const literal = literalAddress(url.hostname);
  if (literal) refuseForbidden(url.hostname, literal, policy);
  return url;
}

/** The address a delivery connects to, with the URL it stands for. */
export type ResolvedTarget = { url: URL; address: string };

type Lookup = (hostname: string) => Promise<string[]>;
const systemLookup: Lookup = async (hostname) => (await dnsLookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * Resolves a webhook's host now and checks every address it resolves to; throws
 * WebhookTargetError when the name is unknown or any address is forbidden.
 */
export async function resolveWebhookTarget(url: URL, policy: Policy, lookup: Lookup = systemLookup): Promise<ResolvedTarget> {
  const literal = literalAddress(url.hostname);
  let addresses: string[];
  if (literal) {
    addresses = [literal];
  } else {
    try {
      addresses = await lookup(url.hostname);
    } catch {
      throw new WebhookTargetError(`The host name ${url.hostname} could not be found.`);
    }
    if (addresses.length === 0) throw new WebhookTargetError(`The host name ${url.hostname} could not be found.`);
  }
  // Every address, not just the first: a name answering with a public and a private address
  // could be connected to either.
  for (const address of addresses) refuseForbidden(url.hostname, address, policy);
  return { url, address: addresses[0]! };
}

/** The IP address a URL's hostname spells out (IPv6 without brackets), or null for a name. */
function literalAddress(hostname: string): string | null {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) && (bare.includes(":") || ipaddr.IPv4.isValidFourPartDecimal(bare)) ? bare : null;
}

/** Public unicast only: refuses loopback, private, link-local (metadata), shared, reserved, multicast, and IPv6 forms carrying such IPv4 (public-address.ts). */
function refuseForbidden(hostname: string, address: string, policy: Policy) {
  if (policy.allowPrivate) return;
  const range = nonPublicRange(address);
  if (range) {
    const where = hostname === address || hostname === `[${address}]` ? address : `${hostname} (${address})`;
    throw new WebhookTargetError(
      `The webhook address ${where} is not a public internet address (${range}). Webhooks may not reach loopback, private, link-local or cloud metadata addresses.`,
    );
  }
}

export type SendOptions = {
  timeoutMs: number;
  /** Certificate authorities to trust instead of the system's (tests with their own TLS receiver). */
  ca?: string;
};

/**
 * POSTs `body` to the checked address with the URL's name as Host and TLS server name (the
 * certificate is still verified for that name). Answers the HTTP status; a redirect is not
 * followed (its 3xx status is the answer). Throws on a network error or timeout.
 */
export async function postToTarget(target: ResolvedTarget, body: string, headers: Record<string, string>, options: SendOptions): Promise<number> {
  const { url, address } = target;
  const pinned = new URL(url.href);
  pinned.hostname = address.includes(":") ? `[${address}]` : address;
  const serverName = literalAddress(url.hostname) ? undefined : url.hostname;
  const response = await fetch(pinned.href, {
    method: "POST",
    body,
    headers: { ...headers, host: url.host, "content-type": "application/json", "user-agent": "DBVault-Webhooks/1" },
    redirect: "manual",
    signal: AbortSignal.timeout(options.timeoutMs),
    tls: { ...(serverName ? { serverName } : {}), ...(options.ca ? { ca: options.ca } : {}) },
  } as RequestInit);
  // Nothing in the answer is used; drop it instead of reading an endpoint's arbitrarily long reply.
  await response.body?.cancel().catch(() => {});
  return response.status;
}
