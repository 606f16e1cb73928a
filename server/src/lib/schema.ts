import type { TLiteral, TUnion } from "@sinclair/typebox";
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
