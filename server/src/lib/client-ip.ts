import { isIPv4, isIPv6 } from "node:net";
import type { Server } from "bun";
import type { AppContext } from "../context";

/**
 * The caller's address for rate limiting, as `rateLimitAddress` groups it. Behind TRUST_PROXY=N
 * proxies it is the entry N places from the right of X-Forwarded-For: each proxy appends the
 * address it saw, so entries further left are whatever the client sent. Without enough entries
 * (the proxies were bypassed) it is the socket's.
 */
export function clientIp(ctx: AppContext, request: Request, server: Server<unknown> | null): string {
  const socketAddress = server?.requestIP(request)?.address ?? "local";
  return rateLimitAddress(forwardedClientAddress(request.headers.get("x-forwarded-for"), ctx.config.trustProxyHops) ?? socketAddress);
}

/** The 8 groups of an IPv6 address, as numbers (null when it is not one). */
function ipv6Groups(address: string): number[] | null {
  if (!isIPv6(address)) return null;
  let text = address;
  // An IPv4 tail (::ffff:192.0.2.1) becomes its two groups.
  const v4 = text.match(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((group) => parseInt(group, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
}

/**
 * The address a limit counts: an IPv4 address as it is (also when written as ::ffff:a.b.c.d), an
 * IPv6 address by its /64, the block one customer line or host gets; otherwise every one of the
 * 2^64 addresses of a /64 would count as another caller.
 */
export function rateLimitAddress(raw: string): string {
  const address = raw
    .trim()
    .replace(/^\[|\]$/g, "")
    .replace(/%.*$/, "")
    .toLowerCase();
  if (isIPv4(address)) return address;
  const groups = ipv6Groups(address);
  if (!groups) return address;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join(".");
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}

export function forwardedClientAddress(header: string | null, hops: number): string | null {
  if (hops === 0 || !header) return null;
  const entries = header.split(",").map((entry) => entry.trim());
  const entry = entries[entries.length - hops];
  return entry || null;
}
