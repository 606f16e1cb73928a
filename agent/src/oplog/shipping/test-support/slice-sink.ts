// Test stand-in for the server's slice upload: each slice lands in a directory as its file and
// description, as the server stores them (and, like the server, a slice sent again replaces
// nothing). Tests then read the chain back with the key.
import { mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { BSON, type Timestamp } from "bson";
import { decryptBuffer } from "../../../archive/index.ts";
import type { SpooledSlice } from "../shipping-store.ts";
import type { UploadSlice } from "../slice-uploader.ts";

export function uploadToDirectory(directory: string): UploadSlice {
  return async (slice) => {
    await mkdir(directory, { recursive: true });
    const name = `${slice.chain}-${String(slice.sequence).padStart(10, "0")}`;
    const { bytes, ...description } = slice;
    await writeFile(join(directory, `.${name}.tmp`), bytes);
    await writeFile(join(directory, `${name}.json`), JSON.stringify(description));
    await rename(join(directory, `.${name}.tmp`), join(directory, `${name}.enc.dbvault`));
  };
}

/** A shipped slice read back: its description, its preamble and its entries. */
export type ReadSlice = { description: Omit<SpooledSlice, "bytes">; plaintext: Buffer; preamble: Record<string, unknown>; entries: Record<string, unknown>[] };

const timeOf = (ts: Timestamp) => ({ t: ts.high >>> 0, i: ts.low >>> 0 });

/** Every slice in the directory, decrypted, in chain order (by start). */
export async function readShippedSlices(directory: string, masterKey: Uint8Array): Promise<ReadSlice[]> {
  const names = (await readdir(directory).catch(() => [] as string[])).filter((name) => name.endsWith(".enc.dbvault"));
  const slices: ReadSlice[] = [];
  for (const name of names) {
    const description = JSON.parse(await readFile(join(directory, name.replace(/\.enc\.dbvault$/, ".json")), "utf8"));
    const { header, plaintext } = await decryptBuffer(await readFile(join(directory, name)), { masterKey });
    if (header.payloadKind !== "oplog-slice") throw new Error(`${name} is a ${header.payloadKind}`);
    const documents: Record<string, unknown>[] = [];
    for (let at = 0; at < plaintext.length; ) {
      const size = plaintext.readInt32LE(at);
      documents.push(BSON.deserialize(plaintext.subarray(at, at + size)));
      at += size;
    }
    slices.push({ description, plaintext, preamble: documents[0]!, entries: documents.slice(1) });
  }
  return slices.sort((a, b) => a.description.start.t - b.description.start.t || a.description.start.i - b.description.start.i);
}

/** An entry's position as "t,i". */
export const positionOf = (entry: Record<string, unknown>) => {
  const { t, i } = timeOf(entry.ts as Timestamp);
  return `${t},${i}`;
};
