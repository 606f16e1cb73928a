import { timingSafeEqual } from "node:crypto";
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { AppError, unauthorized } from "../../lib/errors";
import type { Metrics } from "./service";
import { fileAnswer } from "../../lib/schema";

const sameSecret = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/**
 * `GET /metrics` for Prometheus, with `Authorization: Bearer $METRICS_TOKEN`. Off (404, as if it
 * did not exist) unless METRICS_TOKEN is set; 401 without the token.
 */
export const metricsController = (ctx: AppContext, metrics: Metrics) =>
  new Elysia({ detail: { tags: ["Monitoring"] } }).get(
    "/metrics",
    async ({ headers, set }) => {
      const token = ctx.config.metricsToken;
      if (!token) throw new AppError(404, "NOT_FOUND", "Not found.");
      const given = headers.authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
      if (!given || !sameSecret(given, token)) throw unauthorized("The metrics token is missing or wrong (Authorization: Bearer $METRICS_TOKEN).");
      set.headers["content-type"] = metrics.contentType;
      set.headers["cache-control"] = "no-store";
      return metrics.render();
    },
    {
      detail: {
        summary: "Prometheus metrics (text exposition format); needs METRICS_TOKEN",
        responses: { 200: fileAnswer("Prometheus text exposition format", "text/plain; version=0.0.4") },
      },
    },
  );
