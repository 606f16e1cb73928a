import { expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zipLength, zipStream } from "./zip-stream";

const streamOf = (bytes: Uint8Array, pieces = 3) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      const step = Math.ceil(bytes.length / pieces) || 1;
      for (let at = 0; at < bytes.length; at += step) controller.enqueue(bytes.subarray(at, at + step));
      controller.close();
    },
  });

test("a streamed archive is as long as announced and the real unzip reads each file back whole", async () => {
  const files = [
    { name: "slice-a-0000000000.enc.dbvault", bytes: crypto.getRandomValues(new Uint8Array(70_001)) },
    { name: "slice-a-0000000001.enc.dbvault", bytes: new Uint8Array(0) },
    { name: "slice-b-0000000000.enc.dbvault", bytes: crypto.getRandomValues(new Uint8Array(513)) },
  ];
  const entries = files.map((file) => ({ name: file.name, size: file.bytes.length, open: async () => streamOf(file.bytes) }));
  const archive = Buffer.from(await new Response(zipStream(entries, new Date("2026-11-27T14:37:06Z"))).arrayBuffer());
  expect(archive.length).toBe(zipLength(entries));
  const unzip = Bun.which("unzip");
  if (!unzip) return console.warn("unzip is not installed: the archive's contents are not checked");
  const dir = await mkdtemp(join(tmpdir(), "dbvault-zip-"));
  try {
    await writeFile(join(dir, "slices.zip"), archive);
    const tested = Bun.spawnSync([unzip, "-t", join(dir, "slices.zip")]);
    expect(tested.exitCode).toBe(0);
    for (const file of files) {
      const read = Bun.spawnSync([unzip, "-p", join(dir, "slices.zip"), file.name]);
      expect(Buffer.from(read.stdout).equals(Buffer.from(file.bytes))).toBe(true);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("a file whose bytes differ in length from its stated size fails the stream", async () => {
  const entries = [{ name: "short", size: 10, open: async () => streamOf(new Uint8Array(4)) }];
  expect(new Response(zipStream(entries, new Date())).arrayBuffer()).rejects.toThrow("short is 4 bytes, not the 10 recorded");
});
