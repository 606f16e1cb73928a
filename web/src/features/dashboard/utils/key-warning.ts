// Key rotation (issue 27 §5) on the dashboard: each backup names the key that opens it by its key
// id (a public fingerprint), and each agent says which key ids its keyring holds. The restore
// wizard warns before a restore that would fail because the restoring agent lacks the key.

type KeyedBackup = { databaseName: string; keyId: string | null };
type RunnerDatabase = { name: string; agentId: string | null };
type KeyedAgent = { id: string; name: string; keyIds: string[] | null };

/** The short form shown in the backups list: the first 8 hex digits (the whole id goes in its title). */
export const shortKeyId = (keyId: string) => keyId.slice(0, 8);

/** Why the agent that would restore this backup cannot open it, or null when it can (or nobody can tell). */
export function describeMissingKey(backup: KeyedBackup, databases: readonly RunnerDatabase[] | null, agents: readonly KeyedAgent[]): string | null {
  if (!backup.keyId) return null;
  const agentId = databases?.find((database) => database.name === backup.databaseName)?.agentId;
  const agent = agents.find((each) => each.id === agentId);
  if (!agent?.keyIds || agent.keyIds.includes(backup.keyId)) return null;
  return (
    `The agent ${agent.name} does not hold the key this backup was encrypted with (key id ${backup.keyId}), so the restore would fail. ` +
    `On a machine whose keyring has that key, run dbvault-agent key export --all; then on ${agent.name}'s machine run dbvault-agent key import --add and restart its agent.`
  );
}
