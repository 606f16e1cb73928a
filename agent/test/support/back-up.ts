// A whole encrypted backup in memory: what most dump/restore tests start from.
import { type BackupStreamOptions, createBackupStream, type DumpResult } from "../../src/dump/index.ts";

/** Runs createBackupStream to its end; answers the .enc.dbvault bytes and the dump's result, or throws its error. */
export async function backUpToBuffer(options: BackupStreamOptions): Promise<{ file: Buffer; result: DumpResult }> {
  const backup = createBackupStream(options);
  const chunks: Buffer[] = [];
  for await (const chunk of backup.stream) chunks.push(chunk as Buffer);
  const result = await backup.result;
  return { file: Buffer.concat(chunks), result };
}
