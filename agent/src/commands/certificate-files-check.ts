// Certificate files named in a connection string (tlsCertificateKeyFile for x509 client
// authentication, tlsCAFile, tlsCRLFile) are paths on the agent's machine, read by the driver and
// by mongodump at every connection. setup and db add check them before connecting, so a wrong path
// or a file the agent's user cannot read is named as such, not as a TLS failure. Only the path and
// the option are named: never the file's contents, never the connection string.
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import type { ConnectionProblem } from "./connection-string-check.ts";

const FILE_OPTIONS = ["tlsCertificateKeyFile", "tlsCAFile", "tlsCRLFile"];

/** The certificate file options of a connection string and their (decoded) paths, in order. */
export function readCertificateFileOptions(uri: string): Array<{ option: string; path: string }> {
  const query = uri.indexOf("?") < 0 ? "" : uri.slice(uri.indexOf("?") + 1);
  const found: Array<{ option: string; path: string }> = [];
  for (const [key, value] of new URLSearchParams(query)) {
    const option = FILE_OPTIONS.find((name) => name.toLowerCase() === key.toLowerCase());
    if (option && value !== "") found.push({ option, path: value });
  }
  return found;
}

/** The first certificate file that is missing, not a file, or unreadable by this user; undefined when all are fine. */
export async function findCertificateFileProblem(uri: string): Promise<ConnectionProblem | undefined> {
  for (const { option, path } of readCertificateFileOptions(uri)) {
    const hint = `${option} is a path on this machine, read by the agent at every connection: copy the file here, readable by the user the agent runs as, and name its full path`;
    const info = await stat(path).catch(() => undefined);
    if (!info) return { problem: `the file ${path} (${option}) does not exist on this machine`, hint };
    if (!info.isFile()) return { problem: `${path} (${option}) is not a file`, hint };
    const readable = await access(path, constants.R_OK).then(
      () => true,
      () => false,
    );
    if (!readable) return { problem: `the file ${path} (${option}) cannot be read by this user`, hint };
  }
  return undefined;
}
