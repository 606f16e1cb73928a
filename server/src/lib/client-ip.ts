import type { Server } from "bun";
import type { AppContext } from "../context";

/** The caller's address for rate limiting; X-Forwarded-For only when TRUST_PROXY is set. */
export function clientIp(ctx: AppContext, request: Request, server: Server<unknown> | null): string {
  if (ctx.config.trustProxy) {
    const forwarded = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim();
    if (forwarded) return forwarded;
  }
  return server?.requestIP(request)?.address ?? "local";
}
