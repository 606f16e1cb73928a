import { expect, test } from "bun:test";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEarlyWriteback } from "./file-uploads";

test("early writeback syncs in the background and settles, also when the file is gone", async () => {
  const dir = await mkdtemp(join(tmpdir(), "dbvault-writeback-"));
  try {
    const path = join(dir, "upload.data");
    await writeFile(path, new Uint8Array(4096).fill(7));
    const writeback = createEarlyWriteback(1024);
    writeback.wrote(path, 4096); // past the threshold: a datasync starts
    await expect(writeback.settle(path)).resolves.toBeUndefined();
    // The sync reads nothing into the file and cuts nothing from it.
    expect(await readFile(path)).toEqual(Buffer.from(new Uint8Array(4096).fill(7)));

    // A sync that fails (the upload was removed meanwhile) must neither throw nor reject unhandled:
    // the sync at completion is the one that reports disk errors.
    const gone = join(dir, "removed.data");
    expect(() => writeback.wrote(gone, 4096)).not.toThrow();
    await expect(writeback.settle(gone)).resolves.toBeUndefined();
    await expect(writeback.settle(join(dir, "never-written.data"))).resolves.toBeUndefined();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
