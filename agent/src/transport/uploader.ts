import { createHash } from "node:crypto";
import { UPLOAD_PART_SIZE } from "../../../protocol/agent-protocol";
import { ServerRefusedError } from "./errors";
import type { ServerClient } from "./server-client";

export type UploadResult = { size: number; partCount: number; sha256: string };

const RETRY_DELAYS_MS = [1_000, 2_000, 4_000, 5_000, 5_000, 5_000, 5_000, 5_000];

/**
 * Uploads an encrypted backup stream in parts as it is produced: at most two parts are held in
 * memory (one uploading, one filling). A part whose upload fails is sent again (the server
 * replaces it), so a dropped connection resumes from the last acknowledged part. Refusals that
 * retrying cannot fix (storage limit, revoked key) end the upload at once.
 */
export async function uploadBackup(
  client: ServerClient,
  backupId: string,
  source: AsyncIterable<Uint8Array>,
  options: { partSize?: number; sleep?: (ms: number) => Promise<void>; onPartUploaded?: (uploadedBytes: number) => void } = {},
): Promise<UploadResult> {
  const partSize = options.partSize ?? UPLOAD_PART_SIZE;
  const sleep = options.sleep ?? ((ms: number) => new Promise((resolve) => setTimeout(resolve, ms)));
  const hash = createHash("sha256");
  let size = 0;
  let partNumber = 0;
  let inFlight: Promise<void> | null = null;

  const sendWithRetries = async (number: number, bytes: Uint8Array) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await client.uploadPart(backupId, number, bytes);
        options.onPartUploaded?.(number * partSize + bytes.byteLength);
        return;
      } catch (error) {
        if ((error instanceof ServerRefusedError && error.isFinal) || attempt >= RETRY_DELAYS_MS.length) throw error;
        await sleep(RETRY_DELAYS_MS[attempt]!);
      }
    }
  };

  const ship = async (bytes: Uint8Array) => {
    if (inFlight) await inFlight;
    const number = partNumber++;
    inFlight = sendWithRetries(number, bytes);
    // Surface a failure on the next ship or at the end, not as an unhandled rejection now.
    inFlight.catch(() => {});
  };

  let buffer = new Uint8Array(partSize);
  let filled = 0;
  for await (const chunk of source) {
    hash.update(chunk);
    size += chunk.byteLength;
    let offset = 0;
    while (offset < chunk.byteLength) {
      const take = Math.min(partSize - filled, chunk.byteLength - offset);
      buffer.set(chunk.subarray(offset, offset + take), filled);
      filled += take;
      offset += take;
      if (filled === partSize) {
        await ship(buffer);
        buffer = new Uint8Array(partSize);
        filled = 0;
      }
    }
  }
  if (filled > 0 || partNumber === 0) await ship(buffer.subarray(0, filled));
  if (inFlight) await inFlight;
  const sha256 = hash.digest("hex");
  await client.complete(backupId, { partCount: partNumber, size, sha256 });
  return { size, partCount: partNumber, sha256 };
}
