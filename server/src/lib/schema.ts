import type { TLiteral, TSchema, TUnion } from "@sinclair/typebox";
import { t } from "elysia";

/**
 * A string that must be one of `values`. Not `t.UnionEnum`: it carries a `default` (its first
 * value) that Elysia writes into optional fields the client left out.
 */
type LiteralsOf<T extends readonly string[]> = { -readonly [K in keyof T]: TLiteral<T[K]> };

export function oneOf<const T extends readonly string[]>(values: T, error: string): TUnion<LiteralsOf<T>> {
  return t.Union(
    values.map((value) => t.Literal(value)),
    { error },
  ) as unknown as TUnion<LiteralsOf<T>>;
}

// Answer schemas (Elysia `response:`). They document every field in /api/docs and, at run time,
// drop any field they do not list, so a column added to a row never leaks into an answer unseen.

/** A date as the API answers it: ISO 8601 text. */
export const isoDate = () => t.String({ description: "ISO 8601 date and time" });

/** `schema` or null. */
export const nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()]);

/** `{ message }`: the answer of actions with nothing else to say. */
export const messageAnswer = t.Object({ message: t.String() });

/** The OpenAPI answer of a route that answers bytes or text, not JSON (TypeBox describes JSON). */
export const fileAnswer = (description: string, mediaType = "application/octet-stream") => ({
  description,
  content: { [mediaType]: { schema: { type: "string" as const, ...(mediaType === "application/octet-stream" ? { format: "binary" } : {}) } } },
});
