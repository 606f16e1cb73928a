// Where sign-in and sign-up lead afterwards: `?next=` (the invitation page sends people through
// them), only to a path of this site, never to another origin.

/** The `next` parameter of `search` when it is a path on this site; otherwise null. */
export function readNextPath(search: string): string | null {
  const next = new URLSearchParams(search).get("next");
  if (!next?.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return null;
  return next;
}

/** `path` with `next` (and any other parameters) as its query. */
export function withQuery(path: string, params: Record<string, string | null | undefined>): string {
  const query = new URLSearchParams(Object.entries(params).filter((entry): entry is [string, string] => Boolean(entry[1]))).toString();
  return query ? `${path}?${query}` : path;
}
