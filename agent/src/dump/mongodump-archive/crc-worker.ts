// The CRC offload's thread (crc-offload.ts): applies the checksum operations it is sent, in order,
// and says how far it got through a shared counter. Built into the agent as its own entry point
// (scripts/build-agent.ts), so that a compiled agent can start it.
import { Crc64 } from "./crc64.ts";
import { type CrcMismatch, type CrcOperation, type CrcWorkerMessage, PROGRESS_DONE, PROGRESS_FAILED } from "./crc-protocol.ts";

declare const self: Worker;

let slots: Uint8Array[] = [];
let progress: Int32Array = new Int32Array(2);
const checksums = new Map<number, Crc64>();
const mismatches: CrcMismatch[] = [];

function apply(operation: CrcOperation): void {
  let crc = checksums.get(operation.namespace);
  if (!crc) checksums.set(operation.namespace, (crc = new Crc64()));
  if ("storedCrc" in operation) {
    if (crc.digestInt64() !== operation.storedCrc) mismatches.push(operation);
  } else if ("bytes" in operation) crc.update(operation.bytes);
  else crc.update(slots[operation.slot]!, operation.start, operation.end);
}

self.onmessage = (event: MessageEvent<CrcWorkerMessage>) => {
  const message = event.data;
  try {
    if (message.kind === "start") {
      slots = message.slots.map((slot) => new Uint8Array(slot));
      progress = new Int32Array(message.progress);
    } else if (message.kind === "batch") {
      for (const operation of message.operations) apply(operation);
      Atomics.store(progress, PROGRESS_DONE, message.sequence);
      Atomics.notify(progress, PROGRESS_DONE);
    } else self.postMessage({ mismatches });
  } catch (error) {
    Atomics.store(progress, PROGRESS_FAILED, 1);
    Atomics.notify(progress, PROGRESS_DONE);
    self.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
};
