// What shipping keeps on disk for one database, so a restart (even a SIGKILL) resumes with no
// entry lost and none twice: sealed slices not yet acknowledged by the server (the spool), and
// where the chain stands. A slice is spooled (file, then its description) before the position
// moves past it, so whatever the moment of a kill, the newest spooled slice or the state file
// says where the next slice starts.
import { mkdir, open, readdir, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { OplogTime } from "../../../../protocol/oplog-position.ts";
import { syncDirectory } from "../../platform/sync-directory.ts";
import type { FrameWriter, SealedSlice } from "./slice-builder.ts";

/** Why a chain's first slice starts a chain; "continues" for every later slice. */
export type SliceReason = "continues" | "started" | "rollover";

/** A sealed slice as spooled and uploaded: with why it starts where it does (its bytes wait on disk). */
export type SpooledSlice = SealedSlice & { reason: SliceReason; rolloverFrom?: OplogTime };

/** Where the next slice of the chain starts; before a chain's first slice, also why the chain starts. */
export type ChainPosition = { chain: string; nextSequence: number; end: OplogTime; reason?: SliceReason; rolloverFrom?: OplogTime };

const STATE_FILE = "state.json";
const sliceName = (slice: { chain: string; sequence: number }) => `${slice.chain}-${String(slice.sequence).padStart(10, "0")}`;

/** Writes a file whole or not at all: a temporary file, written by `fill`, flushed, then renamed over the name. */
async function writeAtomically<T>(directory: string, name: string, fill: (write: FrameWriter) => Promise<T>): Promise<T> {
  const temporary = join(directory, `.${name}.tmp`);
  const handle = await open(temporary, "w", 0o600);
  let filled: T;
  try {
    filled = await fill(async (bytes) => void (await handle.write(bytes)));
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  await rename(temporary, join(directory, name));
  await syncDirectory(directory);
  return filled;
}

const writeTextAtomically = (directory: string, name: string, text: string) => writeAtomically(directory, name, (write) => write(Buffer.from(text)));

/** The spool and chain position of one database, in `directory` (created 0700 when missing). */
export class ShippingStore {
  constructor(readonly directory: string) {}

  /** The position to resume from (undefined: never shipped) and the slices still to upload, oldest first. */
  async load(): Promise<{ position: ChainPosition | undefined; pending: SpooledSlice[] }> {
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    const names = (await readdir(this.directory)).filter((name) => name.endsWith(".json") && name !== STATE_FILE).sort();
    const pending: SpooledSlice[] = [];
    for (const name of names) pending.push(JSON.parse(await readFile(join(this.directory, name), "utf8")) as SpooledSlice);
    const saved = await readFile(join(this.directory, STATE_FILE), "utf8").then(
      (text) => JSON.parse(text) as ChainPosition,
      () => undefined,
    );
    // Killed between spooling a slice and saving the position: the slice is the truth.
    const newest = pending.at(-1);
    const position =
      newest && (!saved || saved.chain !== newest.chain || saved.nextSequence <= newest.sequence)
        ? { chain: newest.chain, nextSequence: newest.sequence + 1, end: newest.end }
        : saved;
    pending.sort((a, b) => a.start.t - b.start.t || a.start.i - b.start.i);
    return { position, pending };
  }

  /**
   * Keeps a slice until the server has it, then moves the position past it: `seal` writes the
   * slice's file into the spool and answers its description. Answers that description.
   */
  async spool(place: { chain: string; sequence: number }, seal: (write: FrameWriter) => Promise<SpooledSlice>): Promise<SpooledSlice> {
    const slice = await writeAtomically(this.directory, `${sliceName(place)}.enc.dbvault`, seal);
    await writeTextAtomically(this.directory, `${sliceName(slice)}.json`, JSON.stringify(slice));
    await this.savePosition({ chain: slice.chain, nextSequence: slice.sequence + 1, end: slice.end });
    return slice;
  }

  /** A spooled slice's file, read as it is uploaded. */
  file(slice: { chain: string; sequence: number }): Blob {
    return Bun.file(join(this.directory, `${sliceName(slice)}.enc.dbvault`));
  }

  /** Records where the next slice starts (a new chain before its first slice). */
  async savePosition(position: ChainPosition): Promise<void> {
    await writeTextAtomically(this.directory, STATE_FILE, JSON.stringify(position));
  }

  /** Forgets a slice the server acknowledged. */
  async acknowledge(slice: { chain: string; sequence: number }): Promise<void> {
    await rm(join(this.directory, `${sliceName(slice)}.json`), { force: true });
    await rm(join(this.directory, `${sliceName(slice)}.enc.dbvault`), { force: true });
  }
}
