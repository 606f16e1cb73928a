import { badRequest } from "./errors";

const listOf = (fields: readonly string[]) => (fields.length === 1 ? fields[0]! : `${fields.slice(0, -1).join(", ")} or ${fields.at(-1)}`);

function problemWith(body: unknown, fields: readonly string[]): string | null {
  const isPlainObject = typeof body === "object" && body !== null && Object.getPrototypeOf(body) === Object.prototype;
  if (!isPlainObject) return `The request body must be a JSON object with ${listOf(fields)}.`;
  const unknown = Object.keys(body).find((key) => !fields.includes(key));
  return unknown === undefined ? null : `${unknown} is not a field here: send ${listOf(fields)}.`;
}

/**
 * Route hooks refusing anything but a JSON object of `fields`: a string, null, an array, form data
 * or an unknown field gets a 400 that names what is wrong, instead of a 200 that changed nothing.
 * The body is looked at in `transform`, before validation drops what the schema does not name, and
 * refused in `beforeHandle`, after authentication, so an anonymous caller still gets 401.
 */
export function onlyJsonObjectOf(fields: readonly string[]) {
  const problems = new WeakMap<Request, string>();
  return {
    transform(context: { request: Request; body: unknown }) {
      const problem = problemWith(context.body, fields);
      if (problem === null) return;
      problems.set(context.request, problem);
      context.body = {};
    },
    beforeHandle({ request }: { request: Request }) {
      const problem = problems.get(request);
      if (problem !== undefined) throw badRequest(problem);
    },
  };
}
