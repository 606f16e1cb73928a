import { toOpenAPISchema } from "@elysiajs/openapi";
import type { AnyElysia } from "elysia";
import { PRODUCT_VERSION } from "@protocol/version";

type Operation = { requestBody?: { content?: Record<string, unknown> } };
type RouteWithSchemas = { method: string; path: string; hooks?: { body?: unknown } };

/**
 * The OpenAPI description of the app's routes, served at /api/docs. The generator leaves a JSON
 * body's fields out when a route has a parser it does not know by name (our global capped JSON
 * parser, lib/http.ts), so each empty request body is filled from the route's own body schema.
 */
export function describeApi(app: AnyElysia) {
  const { paths, components } = toOpenAPISchema(app) as { paths: Record<string, Record<string, Operation>>; components: { schemas?: object } };
  const routes = app.routes as unknown as RouteWithSchemas[];
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const body = operation.requestBody;
      if (!body || Object.keys(body.content ?? {}).length > 0) continue;
      const route = routes.find((r) => r.method.toLowerCase() === method && r.path === path.replace(/\{(\w+)\}/g, ":$1"));
      if (route?.hooks?.body) body.content = { "application/json": { schema: route.hooks.body } };
    }
  }
  return {
    openapi: "3.1.2",
    info: { title: "DBVault API", version: PRODUCT_VERSION, description: "Encrypted MongoDB backups: the web app's API." },
    components: { ...components, securitySchemes: { bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" } } },
    paths,
  };
}
