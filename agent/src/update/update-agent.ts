// "Check for Updates": the steps between the server's command and a restart into the new version.
import type { UpdateStatus } from "../../../protocol/agent-protocol";
import type { OsFamily } from "../platform/locations.ts";
import { ServerRefusedError, ServerUnreachableError } from "../transport/errors.ts";
import type { ServerClient } from "../transport/server-client.ts";
import { UpdateError } from "./errors.ts";
import { checkRelease } from "./release-check.ts";
import { replaceBinary } from "./replace-binary.ts";

export type UpdateReport = (status: UpdateStatus, message: string, version?: string) => void;

export type UpdateOptions = {
  client: ServerClient;
  /** The release signing key pinned at setup; undefined for a config written before keys were pinned. */
  trustedKey: string | undefined;
  /** Keeps the server's key as the trusted one (first update of such a config). */
  pinKey(key: string): Promise<void>;
  current: { version: string; platform: string | null };
  /** The running binary, replaced in place. */
  executable: string;
  family: OsFamily;
  report: UpdateReport;
};

/**
 * Checks the signed manifest and, when it offers a newer version for this platform, downloads,
 * checks and installs it over the running binary. Answers the version installed (a restart runs
 * it) or null when this one is the newest. Throws UpdateError saying why nothing was installed.
 */
export async function updateAgent(options: UpdateOptions): Promise<string | null> {
  const { client, current, report } = options;
  report("checking", `checking the server's signed release manifest (running ${current.version})`);
  const answer = await serverCall(() => client.releases(), "reading the release manifest");
  const check = checkRelease(answer, current, options.trustedKey);
  // Only a key whose signature just held is kept, and only when none was pinned before.
  if (options.trustedKey === undefined) await options.pinKey(answer.publicKey);
  if (check.kind === "up-to-date") {
    report("up-to-date", `dbvault-agent ${current.version} is up to date (the server offers ${check.offered})`, check.offered ?? undefined);
    return null;
  }
  const { entry } = check;
  report(
    "installing",
    `downloading dbvault-agent ${entry.version} for ${entry.platform} (${(entry.size / 1024 / 1024).toFixed(1)} MiB) and checking it`,
    entry.version,
  );
  const response = await serverCall(() => client.downloadBinary(entry.fileName), `downloading ${entry.fileName}`);
  if (!response.body) throw new UpdateError(`the server sent no body for ${entry.fileName}: nothing was installed`);
  await replaceBinary({ target: options.executable, family: options.family, body: response.body, expected: entry });
  return entry.version;
}

async function serverCall<T>(call: () => Promise<T>, doing: string): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ServerUnreachableError || error instanceof ServerRefusedError) {
      throw new UpdateError(`${doing} failed: ${error.message}; nothing was installed`);
    }
    throw error;
  }
}
