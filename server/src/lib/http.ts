import { Elysia, type ValidationError } from "elysia";
import type { Logger } from "./logger";
import { AppError } from "./errors";
import { publicErrorOf } from "./public-error";
import { unstorableTextProblem, unstorableValueProblem } from "./storable-text";

/** JSON request bodies above this are refused with 413 (backup uploads have their own route and limit). */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

// Strict enough that an injected <script> or inline handler cannot run, loose enough for the SPA
// (its own scripts and styles, inline style attributes React sets, images as data URIs, our sockets).
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  // CSP 3: 'self' also allows ws:/wss: to this same origin, and nothing else.
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

export const securityHeaders = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "referrer-policy": "strict-origin-when-cross-origin",
  "x-frame-options": "DENY",
  // The app copies to the clipboard and needs no other powerful feature.
  "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=(), clipboard-write=(self)",
};

/**
 * Browsers honour Cross-Origin-Opener-Policy only on a trustworthy origin (https, or loopback) and
 * log a console error for it on every page load over plain http elsewhere (a LAN address).
 */
const CROSS_ORIGIN_OPENER_POLICY = "same-origin";

/** localhost, *.localhost, 127.0.0.0/8 and ::1: trustworthy to a browser even over http. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  return host === "localhost" || host.endsWith(".localhost") || /^127(\.\d{1,3}){3}$/.test(host) || host === "::1";
}

/** One year, subdomains included: sent only when the server is reached over https (PUBLIC_URL). */
const STRICT_TRANSPORT_SECURITY = "max-age=31536000; includeSubDomains";

const tooLarge = () => new AppError(413, "PAYLOAD_TOO_LARGE", `The request body is too large (limit ${MAX_JSON_BODY_BYTES / 1024} KB).`);

/** The body as text, refusing (413) as soon as it grows past `limit` bytes, whatever Content-Length said. */
async function readCapped(request: Request, limit: number): Promise<string> {
  if (!request.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** A field's own message when its schema has one, else a sentence naming the field. */
function validationMessage(error: ValidationError): string {
  const first = error.all[0] as { path?: string; summary?: string; message?: string; schema?: { error?: unknown } } | undefined;
  const custom = first?.schema?.error;
  if (typeof custom === "string") return custom;
  const field = first?.path?.replace(/^\//, "").replace(/\//g, ".");
  const reason = first?.summary ?? first?.message ?? "is invalid";
  if (!field) return `Invalid request: ${reason}`;
  return `Invalid ${field}: ${reason}`;
}

/** Sets the status (and Retry-After when it has one) of an AppError's answer; answers its JSON body. */
export function answerAppError(set: { status?: number | string; headers: Record<string, string | number> }, appError: AppError) {
  set.status = appError.status;
  if (typeof appError.extra.retryAfter === "number") set.headers["retry-after"] = String(appError.extra.retryAfter);
  return { message: appError.message, code: appError.code, ...appError.extra };
}

/**
 * Cross-cutting HTTP behaviour: security headers on every answer, a body size limit, and one
 * error handler that turns every failure into `{ message, code }` with the right status.
 */
export const httpBasics = (log: Logger, options: { https?: boolean } = {}) =>
  new Elysia({ name: "http-basics" })
    .onRequest(({ request, set }) => {
      Object.assign(set.headers, securityHeaders);
      if (options.https) set.headers["strict-transport-security"] = STRICT_TRANSPORT_SECURITY;
      const url = new URL(request.url);
      if (options.https || url.protocol === "https:" || isLoopbackHost(url.hostname)) set.headers["cross-origin-opener-policy"] = CROSS_ORIGIN_OPENER_POLICY;
      // API answers are per user and may carry secrets (tokens, the API key): never stored by a cache.
      if (url.pathname.startsWith("/api/")) set.headers["cache-control"] = "no-store";
      const length = Number(request.headers.get("content-length") ?? 0);
      const isUpload = url.pathname.startsWith("/api/agent/");
      if (!isUpload && length > MAX_JSON_BODY_BYTES) {
        throw tooLarge();
      }
      for (const [name, value] of url.searchParams) refuseUnstorableText(value, name);
      for (const segment of url.pathname.split("/")) refuseUnstorableText(safeDecode(segment), "the address");
    })
    .onParse({ as: "global" }, async ({ request }, contentType) => {
      // Anything but JSON stays a raw stream: binary uploads read it themselves, and JSON routes
      // refuse it in validation. (Returning nothing here makes Elysia fail `parse: "none"` routes.)
      if (!contentType?.startsWith("application/json")) return request.body ?? null;
      const text = await readCapped(request, MAX_JSON_BODY_BYTES);
      if (text === "") return undefined;
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new AppError(400, "BAD_REQUEST", "The request body is not valid JSON.");
      }
      refuseUnstorableStrings(body);
      return body;
    })
    .onError({ as: "global" }, ({ code, error, set, request }) => {
      Object.assign(set.headers, securityHeaders);
      // Errors thrown by our body parser reach here wrapped in Elysia's ParseError.
      const cause = (error as { cause?: unknown }).cause;
      const appError = error instanceof AppError ? error : cause instanceof AppError ? cause : null;
      if (appError) return answerAppError(set, appError);
      switch (code) {
        case "VALIDATION":
          // Our own answer broke its schema: a bug on our side, not the caller's. Logged by the
          // field's path only (the value may be a secret).
          if ((error as ValidationError).type === "response") {
            const field = ((error as ValidationError).all[0] as { path?: string } | undefined)?.path ?? "";
            log.error("answer does not match its schema", { path: new URL(request.url).pathname, field });
            set.status = 500;
            return { message: "Something went wrong on our side. Please try again in a moment.", code: "INTERNAL" };
          }
          set.status = 400;
          return { message: validationMessage(error as ValidationError), code: "BAD_REQUEST" };
        case "PARSE":
          set.status = 400;
          return { message: "The request body is not valid JSON.", code: "BAD_REQUEST" };
        case "NOT_FOUND":
          set.status = 404;
          return { message: "Not found.", code: "NOT_FOUND" };
        case "INVALID_COOKIE_SIGNATURE":
        case "INVALID_FILE_TYPE":
          set.status = 400;
          return { message: "The request is invalid.", code: "BAD_REQUEST" };
      }
      const status = (error as { status?: number }).status;
      if (typeof status === "number" && status >= 400 && status < 500) {
        set.status = status;
        return { message: (error as Error).message || "The request is invalid.", code: "BAD_REQUEST" };
      }
      // A database or storage outage is a 503 saying so; anything else a 500 without details.
      return answerAppError(set, publicErrorOf(error, log, { path: new URL(request.url).pathname }));
    });

/** Refuses (400, naming the field) text PostgreSQL cannot store (lib/storable-text.ts). */
function refuseUnstorableText(text: string, field: string): void {
  const problem = unstorableTextProblem(text, field);
  if (problem) throw new AppError(400, "BAD_REQUEST", problem);
}

function refuseUnstorableStrings(value: unknown): void {
  const problem = unstorableValueProblem(value);
  if (problem) throw new AppError(400, "BAD_REQUEST", problem);
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
