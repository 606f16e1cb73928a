// PostgreSQL text cannot hold NUL, and a lone surrogate half is not Unicode: input carrying either
// is refused where it arrives (an HTTP body, query or path in lib/http.ts; an agent's socket
// message in agents/gateway.ts), naming the field, instead of failing deep in a query.

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What is wrong with `text` as stored text, naming `field`; null when nothing is. */
export function unstorableTextProblem(text: string, field: string): string | null {
  if (text.includes("\u0000")) return `${field} must not contain NUL characters`;
  if (LONE_SURROGATE.test(text)) return `${field} must be valid Unicode text (it has a lone surrogate)`;
  return null;
}

/** The first string (or field name) in a parsed JSON value that cannot be stored, with its path; null when none. */
export function unstorableValueProblem(value: unknown, path = ""): string | null {
  if (typeof value === "string") return unstorableTextProblem(value, path || "the body");
  if (value === null || typeof value !== "object") return null;
  for (const [key, item] of Object.entries(value)) {
    const field = path ? `${path}.${key}` : key;
    const problem = unstorableTextProblem(key, `the field name ${JSON.stringify(field.slice(0, 60))}`) ?? unstorableValueProblem(item, field);
    if (problem) return problem;
  }
  return null;
}
