// A compression thread of block-compressor.ts: compresses the blocks it is sent where they lie
// (shared input slots) and sends each output back, transferred. Built into the agent as its own
// entry point (scripts/build-agent.ts), so that a compiled agent can start it.
import { threadBlockCompression } from "./compress-block.ts";
import type { Compression } from "./format.ts";

declare const self: Worker;

self.onmessage = (event: MessageEvent<{ id: number; ring: SharedArrayBuffer; offset: number; length: number; compression: Exclude<Compression, "none"> }>) => {
  const { id, ring, offset, length, compression } = event.data;
  try {
    // One per compression kind, kept for the thread's life (its zstd context with it).
    const output = threadBlockCompression(compression).compress(new Uint8Array(ring, offset, length));
    const own = output.byteOffset === 0 && output.byteLength === output.buffer.byteLength ? output : new Uint8Array(output);
    self.postMessage({ id, output: own }, [own.buffer]);
  } catch (error) {
    self.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
};
