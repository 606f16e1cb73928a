import type { ServerClient } from "../transport/server-client";
import { ServerRefusedError } from "../transport/errors";

const RETRY_DELAYS_MS = [1_000, 2_000, 4_000, 5_000, 5_000];

/**
 * The backup file as one stream; when the connection drops midway it asks again from the byte
 * it reached (HTTP Range), so a flaky link does not restart a long restore from zero.
 */
export function openResumableDownload(
  client: ServerClient,
  backupId: string,
  options: { sleep?: (ms: number) => Promise<void>; signal?: AbortSignal } = {},
): ReadableStream<Uint8Array> {
  const sleep = options.sleep ?? ((ms: number) => new Promise((resolve) => setTimeout(resolve, ms)));
  let received = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  let failures = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        try {
          if (!reader) reader = (await client.download(backupId, received, options.signal)).body!.getReader();
          const { value, done } = await reader.read();
          if (done) return controller.close();
          received += value.byteLength;
          failures = 0;
          controller.enqueue(value);
          return;
        } catch (error) {
          reader = null;
          if (options.signal?.aborted || (error instanceof ServerRefusedError && error.isFinal) || failures >= RETRY_DELAYS_MS.length) {
            throw error;
          }
          await sleep(RETRY_DELAYS_MS[failures++]!);
        }
      }
    },
    async cancel(reason) {
      await reader?.cancel(reason);
    },
  });
}
