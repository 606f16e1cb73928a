import { open } from "node:fs/promises";

/**
 * Flushes a directory's entries to disk, so a rename just made in it (a new config, a new agent
 * binary) survives a power cut. Best effort, never throws: the file is already in place, so a
 * filesystem that cannot flush a directory (some network and FUSE ones refuse) must not turn a
 * finished replacement into a reported failure ("nothing was changed" would then be false).
 * Windows cannot open a directory and needs no such step.
 */
export async function syncDirectory(directory: string): Promise<void> {
  if (process.platform === "win32") return;
  const handle = await open(directory, "r").catch(() => null);
  await handle?.sync().catch(() => undefined);
  await handle?.close().catch(() => undefined);
}
