// Where `copies add` takes the bucket's credentials from, in the order the AWS tools use:
// the environment, then a profile of the shared credentials file, then the terminal.
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { CliError, EXIT } from "../cli-error.ts";
import type { Prompter } from "../ui/prompt.ts";

export interface CopyCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** Reads the credentials; throws CliError when none can be found and none can be asked for. */
export async function readCopyCredentials(
  env: Record<string, string | undefined>,
  profile: string | undefined,
  prompter: Prompter | null,
): Promise<CopyCredentials> {
  if (profile === undefined && env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    return {
      accessKeyId: env.AWS_ACCESS_KEY_ID,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
      ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
    };
  }
  const name = profile ?? env.AWS_PROFILE;
  const fromProfile = await readProfile(env, name ?? "default");
  if (fromProfile) return fromProfile;
  if (name !== undefined) {
    throw new CliError(
      `copies add: no credentials for the AWS profile "${name}"`,
      EXIT.usage,
      `add aws_access_key_id and aws_secret_access_key to [${name}] in ${credentialsFile(env)}`,
    );
  }
  if (prompter) {
    const accessKeyId = await prompter.ask("access key id: ");
    const secretAccessKey = await prompter.askSecret("secret access key (not shown): ");
    if (accessKeyId && secretAccessKey) return { accessKeyId, secretAccessKey };
  }
  throw new CliError(
    "copies add: no credentials for the bucket",
    EXIT.usage,
    "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE (or --profile), or run it in a terminal to be asked",
  );
}

function credentialsFile(env: Record<string, string | undefined>): string {
  return env.AWS_SHARED_CREDENTIALS_FILE || join(env.HOME || homedir(), ".aws", "credentials");
}

/** The profile's keys from the shared credentials file (an INI file), or undefined. */
async function readProfile(env: Record<string, string | undefined>, profile: string): Promise<CopyCredentials | undefined> {
  const text = await readFile(credentialsFile(env), "utf8").catch(() => "");
  let section: string | undefined;
  const values: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[\s*(?:profile\s+)?([^\]]+?)\s*\]$/.exec(line);
    if (header) section = header[1];
    else if (section === profile) {
      const equals = line.indexOf("=");
      if (equals > 0) values[line.slice(0, equals).trim().toLowerCase()] = line.slice(equals + 1).trim();
    }
  }
  const { aws_access_key_id: accessKeyId, aws_secret_access_key: secretAccessKey, aws_session_token: sessionToken } = values;
  if (!accessKeyId || !secretAccessKey) return undefined;
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}
