// Whether what the user gave as a connection string is one at all, checked before any
// connection (and without loading the MongoDB driver): the user is told what it should look like.
// Nothing here quotes a string that may hold a password.

const URI = /^mongodb(\+srv)?:\/\//i;

/** What is wrong with a connection string or its server, for the user. */
export interface ConnectionProblem {
  /** What happened ("nothing is listening at db:27017 (connection refused)"). */
  problem: string;
  /** What to do about it. */
  hint: string;
}

/**
 * Tells what is wrong with a string that should be a MongoDB connection string, before any
 * connection: undefined when it starts with mongodb:// or mongodb+srv://. Suggests the fixed
 * string only when what was typed holds no credentials ("did you mean mongodb://localhost:27117?").
 */
export function findConnectionStringProblem(uri: string): ConnectionProblem | undefined {
  if (URI.test(uri)) return undefined;
  const problem = uri === "" ? "no connection string was given" : "this is not a MongoDB connection string: it must start with mongodb:// or mongodb+srv://";
  const bare = uri.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "");
  const looksLikeHost = /^[A-Za-z0-9._-]+(:\d{1,5})?(,[A-Za-z0-9._-]+(:\d{1,5})?)*(\/[A-Za-z0-9._-]*)?$/.test(bare);
  const hint = looksLikeHost ? `did you mean mongodb://${bare}?` : "it looks like mongodb://user:password@host:27017/database";
  return { problem, hint };
}
