// The audit export, beside the audit list it mirrors (users/index.ts): audit/ itself stays a
// leaf every module records into, so it may not import auth, which imports it back.
import { Elysia, t } from "elysia";
import { auditActions } from "@db/schema";
import type { AppContext } from "../../context";
import { fileAnswer } from "../../lib/schema";
import { authGuard } from "../auth/guard";
import { AUDIT_EXPORT_LIMIT, auditExportFormats, exportAuditLogs } from "../audit/export";

const exportQuery = t.Object({
  format: t.Optional(t.Union([...auditExportFormats.map((f) => t.Literal(f))], { error: "format must be csv or json" })),
  action: t.Optional(
    t.Union([t.Literal(""), t.Literal("all"), ...auditActions.map((a) => t.Literal(a))], { error: "action must be empty, 'all' or one of the audit actions" }),
  ),
});

export const auditExportController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/audit", detail: { tags: ["User"], security: [{ bearer: [] }] } }).use(authGuard(ctx)).get(
    "/export",
    async ({ organization, query, set }) => {
      const file = await exportAuditLogs(ctx.db, {
        organizationId: organization.id,
        action: query.action && query.action !== "all" ? query.action : null,
        format: query.format ?? "csv",
        now: ctx.now(),
      });
      set.headers["content-type"] = file.type;
      set.headers["content-disposition"] = `attachment; filename="${file.filename}"`;
      set.headers["cache-control"] = "no-store";
      return file.body;
    },
    {
      auth: true,
      query: exportQuery,
      detail: {
        summary: "The organization's audit log as a file (?format=csv or json, ?action as the list's filter)",
        description: `Every entry GET /api/user/audit-logs lists under the same filter, newest first, up to ${AUDIT_EXPORT_LIMIT}; any member of the organization may export it. CSV: columns id, timestamp, action, actor_name, actor_email, actor_role, details (the details as JSON), RFC 4180 quoting, CRLF line ends, and an apostrophe before a field a spreadsheet would take for a formula. JSON: an array of the list's entries.`,
        responses: {
          200: {
            description: "The file, as an attachment named audit-log[-action]-YYYY-MM-DD.csv or .json",
            content: {
              ...fileAnswer("CSV", "text/csv").content,
              "application/json": {
                schema: { type: "array" as const, items: { type: "object" as const, description: "An entry as GET /api/user/audit-logs lists it" } },
              },
            },
          },
        },
      },
    },
  );
