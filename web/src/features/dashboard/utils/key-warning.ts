// Key rotation and write-only agents (issue 27 §§4-5) on the dashboard: each backup names the key
// that opens it by its key id (a public fingerprint: a master key's, or the public key a
// write-only agent seals to), and each agent says which key ids it holds. The backups list says
// which agents can read each backup; the restore wizard warns before a restore that would fail
// because no agent holds the key, and says when a restore agent, not the database's own, restores.

type KeyedBackup = { databaseName: string; keyId: string | null };
type RunnerDatabase = { name: string; agentId: string | null };
type KeyedAgent = { id: string; name: string; keyIds: string[] | null; identityRecipient?: string | null };

/** The short form shown in the backups list: the first 8 hex digits (the whole id goes in its title). */
export const shortKeyId = (keyId: string) => keyId.slice(0, 8);

/** The agents that said they hold the backup's key. */
const readersOf = (keyId: string, agents: readonly KeyedAgent[]) => agents.filter((agent) => agent.keyIds?.includes(keyId));

/** The agent running the backup's database when it said what it holds and lacks the backup's key; else null. */
function runnerLackingKey(backup: KeyedBackup, databases: readonly RunnerDatabase[] | null, agents: readonly KeyedAgent[]): KeyedAgent | null {
  if (!backup.keyId) return null;
  const agentId = databases?.find((database) => database.name === backup.databaseName)?.agentId;
  const agent = agents.find((each) => each.id === agentId);
  return agent?.keyIds && !agent.keyIds.includes(backup.keyId) ? agent : null;
}

/** Why the restore would fail (no agent holds the backup's key), or null when one does (or nobody can tell). */
export function describeMissingKey(backup: KeyedBackup, databases: readonly RunnerDatabase[] | null, agents: readonly KeyedAgent[]): string | null {
  const agent = runnerLackingKey(backup, databases, agents);
  if (!agent || readersOf(backup.keyId!, agents).length > 0) return null;
  return (
    `The agent ${agent.name} does not hold the key this backup was encrypted with (key id ${backup.keyId}), so the restore would fail. ` +
    `On a machine whose keyring has that key, run dbvault-agent key export --all; then on ${agent.name}'s machine run dbvault-agent key import --add and restart its agent.`
  );
}

/**
 * When the agent running the backup's database cannot open it but another can (a write-only
 * agent's backup, opened by a restore agent): who restores it. Null otherwise.
 */
export function describeRestoringReader(backup: KeyedBackup, databases: readonly RunnerDatabase[] | null, agents: readonly KeyedAgent[]): string | null {
  const agent = runnerLackingKey(backup, databases, agents);
  const readers = agent ? readersOf(backup.keyId!, agents).map((reader) => reader.name) : [];
  if (!agent || readers.length === 0) return null;
  return (
    `${agent.name} cannot open this backup, so the restore runs on ${readers.join(" or ")}, which holds its key, over that machine's connection. ` +
    `To restore with ${agent.name} itself, paste the identity below.`
  );
}

/**
 * What the wizard's identity field seals a pasted identity to: the public key of the agent running
 * the backup's database when that agent cannot open it ("too-old": its hello named none); null when
 * no identity is offered.
 */
export function identityRecipientOf(
  backup: KeyedBackup,
  databases: readonly RunnerDatabase[] | null,
  agents: readonly KeyedAgent[],
): string | "too-old" | null {
  const agent = runnerLackingKey(backup, databases, agents);
  return agent ? (agent.identityRecipient ?? "too-old") : null;
}

/**
 * Which agents can open a backup, by the key ids their hellos named ("readable by: recovery-laptop"
 * under the backup's key). Null when the backup names no key or no agent said what it holds.
 */
export function describeReaders(backup: Pick<KeyedBackup, "keyId">, agents: readonly KeyedAgent[]): { text: string; none: boolean } | null {
  if (!backup.keyId || agents.every((agent) => agent.keyIds === null)) return null;
  const readers = readersOf(backup.keyId, agents);
  if (readers.length === 0) return { text: "readable by: no agent (set up a restore agent with the identity)", none: true };
  return { text: `readable by: ${readers.map((agent) => agent.name).join(", ")}`, none: false };
}
