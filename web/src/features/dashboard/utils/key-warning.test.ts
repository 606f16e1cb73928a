import { describe, expect, test } from "bun:test";
import { describeMissingKey, describeReaders, describeRestoringReader, identityRecipientOf, shortKeyId } from "./key-warning";

const KEY = "32c6aee69f6033de3a2444d67e6f022c";
const OTHER = "2deacbd61cb59e47db556f754d6d86ae";
const RECIPIENT = "age1m2n0a5kyxmduv8dy5pxlpjfatyx9ghke9zewcqky7rm4jmj2q9zsvj5t88";
const databases = [{ name: "shop", agentId: "a1" }];
const agentWith = (keyIds: string[] | null) => [{ id: "a1", name: "db-host-1", keyIds }];

describe("the restore wizard's missing-key warning", () => {
  test("names the agent, the key id needed and how to bring the key over", () => {
    const warning = describeMissingKey({ databaseName: "shop", keyId: KEY }, databases, agentWith([OTHER]));
    expect(warning).toBe(
      `The agent db-host-1 does not hold the key this backup was encrypted with (key id ${KEY}), so the restore would fail. ` +
        "On a machine whose keyring has that key, run dbvault-agent key export --all; then on db-host-1's machine run dbvault-agent key import --add and restart its agent.",
    );
  });

  test("says nothing when the agent holds the key, or when nobody can tell", () => {
    expect(describeMissingKey({ databaseName: "shop", keyId: KEY }, databases, agentWith([OTHER, KEY]))).toBeNull();
    // A backup from before agents reported key ids, an agent that never said, an unknown database.
    expect(describeMissingKey({ databaseName: "shop", keyId: null }, databases, agentWith([OTHER]))).toBeNull();
    expect(describeMissingKey({ databaseName: "shop", keyId: KEY }, databases, agentWith(null))).toBeNull();
    expect(describeMissingKey({ databaseName: "billing", keyId: KEY }, databases, agentWith([OTHER]))).toBeNull();
  });

  test("the list shows the first 8 hex digits", () => expect(shortKeyId(KEY)).toBe("32c6aee6"));
});

describe("write-only agents' backups and restore agents", () => {
  const backupHost = { id: "a1", name: "db-host-1", keyIds: [] as string[] };
  const laptop = { id: "a2", name: "recovery-laptop", keyIds: [KEY] };
  const backup = { databaseName: "shop", keyId: KEY };

  test("the list says which agents can read a backup, and when none can", () => {
    expect(describeReaders(backup, [backupHost, laptop])).toEqual({ text: "readable by: recovery-laptop", none: false });
    expect(describeReaders(backup, [backupHost])).toEqual({ text: "readable by: no agent (set up a restore agent with the identity)", none: true });
    expect(describeReaders({ keyId: null }, [backupHost, laptop])).toBeNull();
    expect(describeReaders(backup, agentWith(null))).toBeNull();
  });

  test("the wizard says the restore agent restores, offers the identity, and does not call it a failure", () => {
    expect(describeRestoringReader(backup, databases, [backupHost, laptop])).toBe(
      "db-host-1 cannot open this backup, so the restore runs on recovery-laptop, which holds its key, over that machine's connection. " +
        "To restore with db-host-1 itself, paste the identity below.",
    );
    expect(describeMissingKey(backup, databases, [backupHost, laptop])).toBeNull();
    expect(identityRecipientOf(backup, databases, [backupHost, laptop])).toBe("too-old");
    expect(describeRestoringReader(backup, databases, [{ ...backupHost, keyIds: [KEY] }, laptop])).toBeNull();
    expect(identityRecipientOf(backup, databases, [{ ...backupHost, keyIds: [KEY] }])).toBeNull();
  });

  test("the identity field seals to the transport key of the agent that cannot open the backup, or says it is too old", () => {
    expect(identityRecipientOf(backup, databases, [{ ...backupHost, identityRecipient: RECIPIENT }, laptop])).toBe(RECIPIENT);
    expect(identityRecipientOf(backup, databases, [{ ...backupHost, identityRecipient: null }, laptop])).toBe("too-old");
  });
});
