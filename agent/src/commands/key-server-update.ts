// After the keyring changes (`key rotate`, `key import`), the server is told the new key ids at
// once. It learnt them only from the agent's hello, so while `dbvault-agent run` kept its
// socket, restores and verifications of backups made (or rewrapped) with the new key were
// refused, "No agent can read this backup", until the agent was restarted.
import { type AgentConfig, openingKeyIds, readServerSettings } from "../config.ts";
import { createServerClient } from "../transport/server-client.ts";
import type { CommandContext } from "./context.ts";

/** Tells the server this agent's key ids; a config never set up has no server to tell. Never throws: the keyring is saved already. */
export async function tellServerKeyIds(config: AgentConfig, path: string, context: CommandContext): Promise<void> {
  let settings: ReturnType<typeof readServerSettings>;
  try {
    settings = readServerSettings(config, path);
  } catch {
    return;
  }
  try {
    await createServerClient(settings).reportKeyIds(openingKeyIds(config, path));
    context.say(
      "told the DBVault server the key ids of this keyring: restores of backups made with its keys go to this agent at once, without restarting dbvault-agent run",
    );
  } catch (error) {
    context.warn(
      `could not tell the DBVault server about the new key (${(error as Error).message}): it refuses restores of backups made with it until dbvault-agent run reconnects; restart it (or its service) now`,
    );
  }
}
