// Small, dependency-free handling of MongoDB connection strings, which are secrets: the parts a
// message may show (hosts), the database path, and redaction of text that might quote them.
// The driver stays the authority on validity; this only splits what it needs to.
import { resolveTxt } from "node:dns/promises";

interface UriParts {
  scheme: string;
  credentials: string | undefined;
  hosts: string;
  database: string | undefined;
  query: string;
}

function splitUri(uri: string): UriParts | undefined {
  const match = /^(mongodb(?:\+srv)?):\/\//i.exec(uri.trim());
  if (!match) return undefined;
  const rest = uri.trim().slice(match[0].length);
  const queryStart = rest.indexOf("?") < 0 ? rest.length : rest.indexOf("?");
  const at = rest.lastIndexOf("@", queryStart);
  const credentials = at < 0 ? undefined : rest.slice(0, at);
  const afterCredentials = rest.slice(at + 1, queryStart);
  const slash = afterCredentials.indexOf("/");
  const hosts = slash < 0 ? afterCredentials : afterCredentials.slice(0, slash);
  const path = slash < 0 ? "" : afterCredentials.slice(slash + 1);
  let database: string | undefined;
  try {
    database = path === "" ? undefined : decodeURIComponent(path);
  } catch {
    database = path;
  }
  return { scheme: match[1]!.toLowerCase(), credentials, hosts, database, query: rest.slice(queryStart) };
}

/** Returns the hosts of a connection string ("db1:27017,db2"), safe to show; "(invalid connection string)" otherwise. */
export function describeUriHosts(uri: string): string {
  const parts = splitUri(uri);
  if (!parts || parts.hosts === "") return "(invalid connection string)";
  return parts.hosts;
}

/** Tells whether a connection string carries a password (user:password@); never throws. */
export function hasUriPassword(uri: string): boolean {
  return splitUri(uri)?.credentials?.includes(":") === true;
}

/** Returns the database named in the connection string's path, if any; never throws. */
export function readUriDatabase(uri: string): string | undefined {
  return splitUri(uri)?.database;
}

/**
 * Returns the connection string without its database path, for tools that take the database
 * separately. The path also names the authentication database when credentials are present
 * and no authSource is given, so it moves into `authSource` then; never throws.
 * `defaultAuthSource` replaces the path there: the authSource a `mongodb+srv://` name's DNS TXT
 * record sets (readSrvTxtAuthSource), which outranks the path but not the string's own options.
 */
export function removeUriDatabase(uri: string, defaultAuthSource?: string): string {
  const parts = splitUri(uri);
  if (!parts || parts.database === undefined) return uri;
  let query = parts.query;
  if (parts.credentials !== undefined && !/[?&]authSource=/i.test(query)) {
    const param = `authSource=${encodeURIComponent(defaultAuthSource ?? parts.database)}`;
    query = query === "" || query === "?" ? `?${param}` : `${query}&${param}`;
  }
  const credentials = parts.credentials === undefined ? "" : `${parts.credentials}@`;
  return `${parts.scheme}://${credentials}${parts.hosts}/${query}`;
}

// What selects the member reads go to: the mode, and what only a non-primary mode may carry.
const READ_PREFERENCE_OPTIONS = /^(readPreference|readPreferenceTags|maxStalenessSeconds|hedge)$/i;

/** The read preference mode the string names ("primary" when none); never throws. */
export function readUriReadPreference(uri: string): string {
  const query = splitUri(uri)?.query.replace(/^\?/, "") ?? "";
  for (const pair of query.split("&")) {
    const [key, value] = pair.split("=");
    if (key !== undefined && /^readPreference$/i.test(key) && value) return safeDecode(value);
  }
  return "primary";
}

/**
 * The string with its read preference options removed, so the driver and mongorestore read from
 * the primary (their default): restores, staging and swaps read back what they just wrote, which
 * a secondary may not hold yet. Everything else stays as given; never throws.
 */
export function withPrimaryReadPreference(uri: string): string {
  const parts = splitUri(uri);
  if (!parts || parts.query === "" || parts.query === "?") return uri;
  const kept = parts.query
    .slice(1)
    .split("&")
    .filter((pair) => !READ_PREFERENCE_OPTIONS.test(pair.split("=")[0] ?? ""));
  if (kept.length === parts.query.slice(1).split("&").length) return uri;
  const beforeQuery = uri.trim().slice(0, uri.trim().length - parts.query.length);
  return `${beforeQuery}${kept.length > 0 ? `?${kept.join("&")}` : ""}`;
}

/**
 * For a `mongodb+srv://` string with credentials and a database path but no authSource of its
 * own: the authSource its host's DNS TXT record sets (MongoDB Atlas sets admin there), looked up
 * as the driver does; undefined otherwise or when there is no such record (the caller's tool
 * then looks it up and fails with its own message).
 */
export async function readSrvTxtAuthSource(uri: string): Promise<string | undefined> {
  const parts = splitUri(uri);
  if (parts?.scheme !== "mongodb+srv" || parts.credentials === undefined || parts.database === undefined) return undefined;
  if (/[?&]authSource=/i.test(parts.query)) return undefined;
  try {
    const records = await resolveTxt(parts.hosts);
    const text = records.map((chunks) => chunks.join("")).join("&");
    return new URLSearchParams(text).get("authSource") ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * Replaces every trace of the connection strings in a text (the strings themselves, their
 * passwords, and any `mongodb://user:pass@` fragment) so tool output can be shown; never throws.
 */
export function redactSecrets(text: string, uris: string[]): string {
  let result = text;
  for (const uri of uris) {
    if (uri === "") continue;
    result = result.split(uri).join(`mongodb://${describeUriHosts(uri)}`);
    for (const [key, value] of new URLSearchParams(splitUri(uri)?.query.replace(/^\?/, "") ?? "")) {
      if (!/^(tlsCertificateKeyFilePassword|sslPEMKeyPassword)$/i.test(key) || value.length < 3) continue;
      for (const form of new Set([value, encodeURIComponent(value)])) result = result.split(form).join("***");
    }
    const credentials = splitUri(uri)?.credentials;
    const colon = credentials?.indexOf(":") ?? -1;
    if (credentials !== undefined && colon >= 0) {
      const password = credentials.slice(colon + 1);
      for (const form of new Set([password, safeDecode(password)])) {
        if (form.length >= 3) result = result.split(form).join("***");
      }
    }
  }
  return result.replace(/(mongodb(?:\+srv)?:\/\/)[^\s/@"']*@/gi, "$1***@").replace(SECRET_OPTIONS, "$1***");
}

// Options whose values are secrets: a client key's password, and mechanism properties that may
// carry a session token (AWS_SESSION_TOKEN). mongodump quotes the whole string, options included,
// in its connection errors.
const SECRET_OPTIONS = /\b((?:tlsCertificateKeyFilePassword|sslPEMKeyPassword|authMechanismProperties)=)[^&\s"'}]*/gi;

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
