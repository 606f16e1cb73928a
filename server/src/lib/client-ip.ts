import type { Server } from "bun";
import type { AppContext } from "../context";

/**
 * The caller's address for rate limiting. Behind TRUST_PROXY=N proxies it is the entry N places
 * from the right of X-Forwarded-For: each proxy appends the address it saw, so entries further left
 * are whatever the client sent. Without enough entries (the proxies were bypassed) it is the socket's.
 */
export function clientIp(ctx: AppContext, request: Request, server: Server<unknown> | null): string {
  const socketAddress = server?.requestIP(request)?.address ?? "local";
  return forwardedClientAddress(request.headers.get("x-forwarded-for"), ctx.config.trustProxyHops) ?? socketAddress;
}

export function forwardedClientAddress(header: string | null, hops: number): string | null {
  if (hops === 0 || !header) return null;
  const entries = header.split(",").map((entry) => entry.trim());
  const entry = entries[entries.length - hops];
  return entry || null;
}
