// Point-in-time recovery: one oplog shipper per database configured with `pitr: true`, running
// beside the job queue for as long as the daemon runs (shipping never waits for a backup, nor a
// backup for shipping). Each ships to the server over the agents' upload path.
import type { MongoClient } from "mongodb";
import { formatOplogTime, type SliceUploadQuery } from "../../../../protocol/pitr";
import { connectClient } from "../../dump/builtin/client.ts";
import { readUriDatabase } from "../../dump/connection-string.ts";
import { ShippingStore, type SpooledSlice } from "../../oplog/shipping/shipping-store.ts";
import { shipOplog } from "../../oplog/shipping/ship-oplog.ts";
import { describeError, type JobContext } from "../job-context.ts";
import type { ShippingTarget } from "../runtime.ts";

const RECONNECT_DELAY_MS = 5_000;

/** What the server is told of a slice (never its entries). */
export function describeSliceForUpload(name: string, slice: SpooledSlice): SliceUploadQuery {
  return {
    database: name,
    chain: slice.chain,
    sequence: String(slice.sequence),
    start: formatOplogTime(slice.start),
    end: formatOplogTime(slice.end),
    ...(slice.first ? { first: formatOplogTime(slice.first) } : {}),
    ...(slice.last ? { last: formatOplogTime(slice.last) } : {}),
    entries: String(slice.entries),
    sha256: slice.sha256,
    reason: slice.reason,
    ...(slice.rolloverFrom ? { rolloverFrom: formatOplogTime(slice.rolloverFrom) } : {}),
  };
}

/** Starts shipping every configured database; `stop` ends them (what was not sealed is read again next start). */
export function startPitrShipping(job: JobContext) {
  const { runtime, signal } = job;
  const running = (async () => {
    let targets: ShippingTarget[] = [];
    try {
      targets = await runtime.shippingTargets();
    } catch (error) {
      runtime.log("could not read which databases ship their oplog", { error: describeError(error) });
    }
    await Promise.all(
      targets.map(async (target) => {
        const database = readUriDatabase(target.uri);
        if (!database) {
          runtime.log("point-in-time recovery needs one database: name it in the connection string", { databaseName: target.name });
          return;
        }
        // A server that is down at start, or a shipper that failed, is tried again until the agent stops.
        while (!signal.aborted) {
          let client: MongoClient | undefined;
          try {
            client = await connectClient(target.uri);
            runtime.log("shipping the oplog (point-in-time recovery)", { databaseName: target.name });
            await shipOplog({
              client,
              database,
              masterKey: target.masterKey,
              store: new ShippingStore(target.stateDirectory),
              upload: (slice, uploadSignal) => runtime.client().uploadSlice(describeSliceForUpload(target.name, slice), slice.bytes, uploadSignal),
              signal,
              log: (message, fields) => runtime.log(message, { databaseName: target.name, ...fields }),
            });
          } catch (error) {
            runtime.log("oplog shipping stopped; starting it again shortly", { databaseName: target.name, error: describeError(error) });
            await pause(RECONNECT_DELAY_MS, signal);
          } finally {
            await client?.close().catch(() => undefined);
          }
        }
      }),
    );
  })();
  return { stopped: running };
}

/** Waits `ms`, or less when the agent stops. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
