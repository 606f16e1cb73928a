// A zip archive written as a stream, for files whose sizes are known up front and whose bytes are
// read once: each entry is stored (no compression: the files are sealed, compression gains
// nothing), its CRC-32 computed as the bytes pass and written after them in a data descriptor, so
// nothing is held in memory but the central directory. Classic zip only (no Zip64): under 65,535
// entries and 4 GiB in all, which callers check (ZIP_MAX_*).
import { crc32 } from "node:zlib";

export const ZIP_MAX_ENTRIES = 65_000;
export const ZIP_MAX_BYTES = 4 * 1024 ** 3 - 64 * 1024 ** 2;

export type ZipEntry = { name: string; size: number; open: () => Promise<ReadableStream<Uint8Array>> };

const LOCAL_HEADER = 30;
const DESCRIPTOR = 16;
const CENTRAL_HEADER = 46;
const END_RECORD = 22;
// Bit 3: CRC and sizes follow the data; bit 11: names are UTF-8.
const FLAGS = 0x0008 | 0x0800;

/** The archive's exact length in bytes, for Content-Length. */
export function zipLength(entries: { name: string; size: number }[]): number {
  return entries.reduce((sum, entry) => {
    const name = Buffer.byteLength(entry.name);
    return sum + LOCAL_HEADER + name + entry.size + DESCRIPTOR + CENTRAL_HEADER + name;
  }, END_RECORD);
}

/** DOS date and time of `date` (zip's modification stamp). */
function dosTime(date: Date): { time: number; day: number } {
  return {
    time: (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | (date.getUTCSeconds() >> 1),
    day: ((Math.max(1980, date.getUTCFullYear()) - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate(),
  };
}

/** The archive of `entries`, in order; a file shorter or longer than its stated size fails the stream. */
export function zipStream(entries: ZipEntry[], modified: Date): ReadableStream<Uint8Array> {
  const { time, day } = dosTime(modified);
  const central: Buffer[] = [];
  let offset = 0;
  let index = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const entry = entries[index++];
      if (!entry) {
        const directory = Buffer.concat(central);
        const end = Buffer.alloc(END_RECORD);
        end.writeUInt32LE(0x06054b50, 0);
        end.writeUInt16LE(entries.length, 8);
        end.writeUInt16LE(entries.length, 10);
        end.writeUInt32LE(directory.length, 12);
        end.writeUInt32LE(offset, 16);
        controller.enqueue(directory);
        controller.enqueue(end);
        controller.close();
        return;
      }
      const name = Buffer.from(entry.name);
      const local = Buffer.alloc(LOCAL_HEADER);
      local.writeUInt32LE(0x04034b50, 0);
      local.writeUInt16LE(20, 4);
      local.writeUInt16LE(FLAGS, 6);
      local.writeUInt16LE(0, 8); // stored
      local.writeUInt16LE(time, 10);
      local.writeUInt16LE(day, 12);
      local.writeUInt16LE(name.length, 26);
      controller.enqueue(Buffer.concat([local, name]));
      let crc = 0;
      let size = 0;
      for await (const chunk of await entry.open()) {
        crc = crc32(chunk, crc);
        size += chunk.byteLength;
        controller.enqueue(chunk);
      }
      if (size !== entry.size) throw new Error(`${entry.name} is ${size} bytes, not the ${entry.size} recorded`);
      const descriptor = Buffer.alloc(DESCRIPTOR);
      descriptor.writeUInt32LE(0x08074b50, 0);
      descriptor.writeUInt32LE(crc >>> 0, 4);
      descriptor.writeUInt32LE(size, 8);
      descriptor.writeUInt32LE(size, 12);
      controller.enqueue(descriptor);
      const header = Buffer.alloc(CENTRAL_HEADER);
      header.writeUInt32LE(0x02014b50, 0);
      header.writeUInt16LE(20, 4);
      header.writeUInt16LE(20, 6);
      header.writeUInt16LE(FLAGS, 8);
      header.writeUInt16LE(0, 10);
      header.writeUInt16LE(time, 12);
      header.writeUInt16LE(day, 14);
      header.writeUInt32LE(crc >>> 0, 16);
      header.writeUInt32LE(size, 20);
      header.writeUInt32LE(size, 24);
      header.writeUInt16LE(name.length, 28);
      header.writeUInt32LE(offset, 42);
      central.push(header, name);
      offset += LOCAL_HEADER + name.length + size + DESCRIPTOR;
    },
  });
}
