// Checking a database's connection string while the user is there to fix it (setup, db add):
// the connection is tried the way dumps make it, but gives up after a few seconds, and a
// failure is put in plain words (nothing listening, unknown host, wrong password, not a
// connection string) with what to change. Nothing here quotes a connection string: a mistyped
// one still holds a password. Only hosts are named.
import { connectClient } from "../dump/builtin/client.ts";
import { describeUriHosts, DumpError } from "../dump/index.ts";
import { CliError, EXIT } from "../cli-error.ts";
import type { PitrAccess } from "../../../protocol/agent-protocol.ts";
import { summarizeOplogAccess } from "../oplog/permissions/index.ts";
import { checkOplogAccess } from "./oplog-access-check.ts";
import type { CommandContext } from "./context.ts";
import { type ConnectionProblem, findConnectionStringProblem } from "./connection-string-check.ts";
import { findCertificateFileProblem, readCertificateFileOptions } from "./certificate-files-check.ts";

/** How long a check looks for the server: long enough for a remote TLS handshake, short enough to wait for. */
export const CHECK_TIMEOUT_MS = 5_000;

/** Connects and disconnects within CHECK_TIMEOUT_MS; answers the host, or throws ConnectionCheckError. */
export async function checkConnection(uri: string): Promise<string> {
  const host = describeUriHosts(uri);
  const malformed = findConnectionStringProblem(uri);
  if (malformed) throw new ConnectionCheckError(malformed);
  const certificateFile = await findCertificateFileProblem(uri);
  if (certificateFile) throw new ConnectionCheckError(certificateFile);
  try {
    const client = await connectClient(uri, CHECK_TIMEOUT_MS);
    await client.close().catch(() => undefined);
    return host;
  } catch (error) {
    throw new ConnectionCheckError(describeCertificateFailure(error, host, uri) ?? describeConnectionFailure(error, host));
  }
}

/**
 * Says whether point-in-time recovery is possible for the database (replica set, oplog readable,
 * entries applicable) and the grant that makes it so; answers the facts the server records
 * (undefined when the server could not be asked). Never fails: the feature is optional.
 */
export async function reportOplogAccess(context: CommandContext, name: string, uri: string): Promise<PitrAccess | undefined> {
  const { access, line, hint } = await checkOplogAccess(name, uri, CHECK_TIMEOUT_MS);
  context.say(line);
  if (hint) context.say(`hint: ${hint}`);
  return access && summarizeOplogAccess(access);
}

/** A failed connection check, put in plain words. */
export class ConnectionCheckError extends Error {
  override readonly name = "ConnectionCheckError";
  readonly hint: string;
  constructor(problem: ConnectionProblem) {
    super(problem.problem);
    this.hint = problem.hint;
  }
}

/** The CLI's error for a database that failed its check in a script (nothing asked again); never throws. */
export function describeFailedCheck(name: string, error: ConnectionCheckError): CliError {
  return new CliError(`cannot use the database "${name}": ${error.message}`, EXIT.failure, `${error.hint}; nothing was saved`);
}

// With a client certificate (tlsCertificateKeyFile), failures that are about it: a key its
// password does not open, a certificate the server refuses in the TLS handshake (with TLS 1.3 the
// client sees only the connection closing), a subject that is no user. The file is named by its
// path, never quoted.
function describeCertificateFailure(error: unknown, host: string, uri: string): ConnectionProblem | undefined {
  const file = readCertificateFileOptions(uri).find((entry) => entry.option === "tlsCertificateKeyFile")?.path;
  if (file === undefined) return undefined;
  const message = error instanceof Error ? error.message : String(error);
  const check = "check the file with: openssl x509 -noout -subject -issuer -nameopt RFC2253 -in FILE";
  if (/bad[ _]decrypt|bad password|PEM_read|no start line/i.test(message)) {
    return {
      problem: `the private key in ${file} (tlsCertificateKeyFile) could not be read: a wrong or missing tlsCertificateKeyFilePassword, or not a PEM key`,
      hint: "give the key's password as tlsCertificateKeyFilePassword (percent-encoded) in the connection string",
    };
  }
  if (/Authentication failed/i.test(message)) {
    return {
      problem: `${host} accepted the client certificate ${file} but has no user named by its subject (authentication failed)`,
      hint: `create the user in the $external database under the certificate's subject, in RFC 2253 form; ${check}`,
    };
  }
  if (/closed|ECONNRESET|socket hang up|alert (unknown ca|bad certificate|certificate required)/i.test(message)) {
    return {
      problem: `${host} refused the client certificate ${file} (tlsCertificateKeyFile)`,
      hint: `the server accepts certificates signed by its own certificate authority (net.tls.CAFile), whose subject is a user in $external; ${check}`,
    };
  }
  return undefined;
}

// The driver's messages, redacted by connectClient, sorted into what a user can act on.
function describeConnectionFailure(error: unknown, host: string): ConnectionProblem {
  const message = error instanceof Error ? error.message : String(error);
  if (/Authentication failed|auth(entication)? mechanism|SCRAM/i.test(message)) {
    return {
      problem: `${host} refused the user name or password (authentication failed)`,
      hint: "check the user and password in the connection string; a user created in the admin database needs ?authSource=admin at its end",
    };
  }
  if (/ECONNREFUSED/.test(message)) {
    return {
      problem: `nothing is listening at ${host} (connection refused)`,
      hint: "check the host and port (MongoDB listens on 27017 unless set otherwise) and that MongoDB is running",
    };
  }
  // mongodb+srv://: the seed list comes from an SRV record and options from a TXT record.
  const srv = /querySrv \w+ _mongodb\._tcp\.(\S+)/.exec(message);
  if (srv) {
    return {
      problem: `${srv[1]} has no DNS SRV record _mongodb._tcp.${srv[1]} (a mongodb+srv:// string needs one)`,
      hint: "check the host name against the string your provider gives (Atlas: Connect, Drivers); with a plain host name, use mongodb://HOST:27017 instead",
    };
  }
  if (/Text record may only set|Multiple text records|URI params in DNS TXT/.test(message)) {
    return {
      problem: `the DNS TXT record of ${host} sets options a mongodb+srv:// lookup may not set (only authSource, replicaSet and loadBalanced, once)`,
      hint: "the TXT record is your DNS provider's or database host's to fix; meanwhile, list the hosts yourself in a mongodb://HOST1,HOST2/?replicaSet=NAME string",
    };
  }
  if (/ENOTFOUND|EAI_AGAIN|querySrv/.test(message)) {
    return {
      problem: `the host name of ${host} is not known (the DNS lookup failed)`,
      hint: "check the spelling of the host name, and that this machine can resolve it",
    };
  }
  if (/timed out|timeout|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH/i.test(message)) {
    return {
      problem: `no answer from ${host} within ${CHECK_TIMEOUT_MS / 1000} s`,
      hint: `check that MongoDB runs at ${host} and that no firewall stands between it and this machine`,
    };
  }
  if (error instanceof DumpError && /not valid/.test(message)) {
    return { problem: message, hint: "it looks like mongodb://user:password@host:27017/database (special characters in the password percent-encoded)" };
  }
  return { problem: message, hint: `check the connection string (user, password, host, database) and that ${host} is reachable from this machine` };
}
