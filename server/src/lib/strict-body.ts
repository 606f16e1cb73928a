// Elysia cleans a body against its schema before checking it, and its cleaner (exact mirror)
// turns a value of the wrong kind where the schema has an object whose fields are all optional
// into an empty object: `notifications: 12345` became `notifications: {}`, and a body of
// `"text"`, `null`, `[]` or form data became `{}`, all answered 200 as if nothing was asked. A
// route whose body is such an object checks the body as it arrived first, with this transform.
import { ValidationError } from "elysia";
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { AppError } from "./errors";

/**
 * A `transform` hook that refuses a body that is not a JSON object (400) or whose fields do not
 * match `schema` as sent (400 naming the field, as any validation error is answered).
 */
export function checkBodyAsSent(schema: TSchema) {
  return ({ body }: { body: unknown }) => {
    if (body === null || typeof body !== "object" || Array.isArray(body) || Object.getPrototypeOf(body) !== Object.prototype) {
      throw new AppError(400, "BAD_REQUEST", "The request body must be a JSON object (Content-Type: application/json).");
    }
    // Fields the schema does not name are dropped afterwards as on every route; only what it names is checked here.
    const named = Value.Clean(schema, structuredClone(body));
    if (!Value.Check(schema, named)) throw new ValidationError("body", schema, named);
  };
}
