import { toOpenAPISchema } from "@elysiajs/openapi";
import type { AnyElysia } from "elysia";
import { PRODUCT_VERSION } from "@protocol/version";
import { securityOf, securitySchemes, tokenScopeOf } from "./api-security";

type Operation = { requestBody?: { content?: Record<string, unknown> }; responses?: Record<string, unknown>; security?: unknown[] };
type RouteWithSchemas = { method: string; path: string; hooks?: { body?: unknown } };

/** Every refusal and failure answers this shape (lib/http.ts's error handler), with extra fields for some codes. */
const errorAnswer = {
  description: "The request was refused (4XX) or failed (5XX)",
  content: {
    "application/json": {
      schema: {
        type: "object",
        required: ["message", "code"],
        properties: {
          message: { type: "string", description: "What went wrong, fit to show the user" },
          code: { type: "string", description: "e.g. BAD_REQUEST, UNAUTHORIZED, TWO_FACTOR_REQUIRED, RATE_LIMITED, PLAN_LIMIT" },
          retryAfter: { type: "integer", description: "With RATE_LIMITED: seconds to wait (also the Retry-After header)" },
        },
        additionalProperties: true,
      },
    },
  },
};

// Paths with a dot are static files to the generator, left out; the installers are operations.
const STATIC_FILES = /^(?!\/install\.(sh|ps1)$).*\./;

/**
 * The OpenAPI description of the app's routes, served at /api/docs. The generator leaves a JSON
 * body's fields out when a route has a parser it does not know by name (our global capped JSON
 * parser, lib/http.ts), so each empty request body is filled from the route's own body schema.
 * Each operation says who may call it (lib/api-security.ts) when its controller did not, and
 * which API token scope it accepts, if any.
 */
export function describeApi(app: AnyElysia) {
  const { paths, components } = toOpenAPISchema(app, { staticFile: false, paths: [STATIC_FILES] }) as {
    paths: Record<string, Record<string, Operation>>;
    components: { schemas?: object };
  };
  const routes = app.routes as unknown as RouteWithSchemas[];
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (method !== "ws") operation.responses = { ...operation.responses, "4XX": errorAnswer, "5XX": errorAnswer };
      operation.security ??= securityOf(method, path);
      const scope = tokenScopeOf(method, path);
      if (scope) operation.security = [...(operation.security ?? []), { apiToken: [scope] }];
      const body = operation.requestBody;
      if (!body || Object.keys(body.content ?? {}).length > 0) continue;
      const route = routes.find((r) => r.method.toLowerCase() === method && r.path === path.replace(/\{(\w+)\}/g, ":$1"));
      if (route?.hooks?.body) body.content = { "application/json": { schema: route.hooks.body } };
    }
  }
  return {
    openapi: "3.1.2",
    info: { title: "DBVault API", version: PRODUCT_VERSION, description: "Encrypted MongoDB backups: the web app's API." },
    components: { ...components, securitySchemes },
    paths,
  };
}
