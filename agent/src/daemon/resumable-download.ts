import type { ServerClient } from "../transport/server-client";
import { ServerRefusedError } from "../transport/errors";

const RETRY_DELAYS_MS = [1_000, 2_000, 4_000, 5_000, 5_000];
/**
 * No byte for this long (the request unanswered, or the body stopped mid-way) counts as a dropped
 * connection. A connection whose peer vanished without a reset (a NAT or load balancer forgetting
 * it, a host gone) is never closed; Bun's fetch gave up on it only after ~6 minutes, so each stall
 * held the job (and those queued behind it) silent that long, and two in a row passed the
 * server's 10-minute stall limit while the restore went on.
 */
export const DOWNLOAD_IDLE_TIMEOUT_MS = 60_000;

/** The download received nothing for the idle timeout; retried like a dropped connection. */
export class DownloadStalledError extends Error {
  constructor(idleMs: number) {
    super(`the download from the DBVault server stalled: no data for ${Number((idleMs / 1000).toFixed(1))} s`);
    this.name = "DownloadStalledError";
  }
}

type ResumeOptions = { sleep?: (ms: number) => Promise<void>; signal?: AbortSignal; idleTimeoutMs?: number };

/**
 * The backup file as one stream; when the connection drops or stalls midway it asks again from
 * the byte it reached (HTTP Range), so a flaky link does not restart a long restore from zero.
 * Errors with the last failure once the retries are spent, or at once for a final refusal.
 */
export function openResumableDownload(client: ServerClient, backupId: string, options: ResumeOptions = {}): ReadableStream<Uint8Array> {
  return openResumableStream((from, signal) => client.download(backupId, from, signal), options);
}

/** An oplog slice of a point-in-time restore, downloaded as openResumableDownload downloads a backup. */
export function openResumableSliceDownload(client: ServerClient, sliceId: string, options: ResumeOptions = {}): ReadableStream<Uint8Array> {
  return openResumableStream((from, signal) => client.sliceDownload(sliceId, from, signal), options);
}

/** One file as a stream, `request` asked again from the byte reached when the connection drops or stalls. */
function openResumableStream(request: (from: number, signal: AbortSignal) => Promise<Response>, options: ResumeOptions): ReadableStream<Uint8Array> {
  const sleep = options.sleep ?? ((ms: number) => new Promise((resolve) => setTimeout(resolve, ms)));
  const idleMs = options.idleTimeoutMs ?? DOWNLOAD_IDLE_TIMEOUT_MS;
  let received = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  let attempt: AbortController | null = null;
  let failures = 0;

  // Waits for one step of the current request (its answer, or its next bytes) for at most the idle
  // timeout; past it the request is aborted and the step fails with DownloadStalledError.
  const withinIdleTime = <T>(step: Promise<T>, request: AbortController): Promise<T> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stalled = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new DownloadStalledError(idleMs);
        request.abort(error);
        reject(error);
      }, idleMs);
    });
    step.catch(() => undefined); // an abort after the timeout rejects it too; the stall is the error
    return Promise.race([step, stalled]).finally(() => clearTimeout(timer));
  };

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        try {
          if (!reader) {
            attempt = new AbortController();
            const signal = options.signal ? AbortSignal.any([options.signal, attempt.signal]) : attempt.signal;
            const response = await withinIdleTime(request(received, signal), attempt);
            reader = response.body!.getReader();
          }
          const { value, done } = await withinIdleTime(reader.read(), attempt!);
          if (done) return controller.close();
          received += value.byteLength;
          failures = 0;
          controller.enqueue(value);
          return;
        } catch (error) {
          void reader?.cancel().catch(() => undefined);
          reader = null;
          if (options.signal?.aborted || (error instanceof ServerRefusedError && error.isFinal) || failures >= RETRY_DELAYS_MS.length) {
            throw error;
          }
          await sleep(RETRY_DELAYS_MS[failures++]!);
        }
      }
    },
    async cancel(reason) {
      attempt?.abort(reason);
      await reader?.cancel(reason);
    },
  });
}
