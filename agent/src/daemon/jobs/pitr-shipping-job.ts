// Point-in-time recovery: one oplog shipper per database the server says to ship (its "pitr"
// message, on every connection and whenever the owner flips the switch), running beside the job
// queue for as long as the daemon runs: shipping never waits for a backup, nor a backup for it.
import type { MongoClient } from "mongodb";
import { formatOplogTime } from "../../../../protocol/oplog-position";
import type { SliceUploadQuery } from "../../../../protocol/pitr";
import { connectClient } from "../../dump/builtin/client.ts";
import { readUriDatabase } from "../../dump/connection-string.ts";
import { createLagMeter, type LagMeter } from "../../oplog/shipping/lag-meter.ts";
import { ShippingStore, type SpooledSlice } from "../../oplog/shipping/shipping-store.ts";
import { shipOplog } from "../../oplog/shipping/ship-oplog.ts";
import { describeError, type JobContext } from "../job-context.ts";
import type { ShippingTarget } from "../runtime.ts";

const RECONNECT_DELAY_MS = 5_000;
/**
 * Every reply the shipper awaits (a tail's getMore waits 1 s at most) comes well within this; past
 * it the link is taken as cut and the tail reopened, rather than waiting on it for ever.
 */
const SHIPPING_SOCKET_TIMEOUT_MS = 30_000;

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

type Shipper = { stop: AbortController; done: Promise<void>; lag: LagMeter };

/** Keeps one shipper running per database named in the server's latest list; `stop` ends them all. */
export function createPitrShipping(job: JobContext) {
  const { runtime } = job;
  const shippers = new Map<string, Shipper>();

  const start = (target: ShippingTarget): Shipper => {
    const stop = new AbortController();
    const signal = AbortSignal.any([stop.signal, job.signal]);
    const lag = createLagMeter();
    const done = runShipper(job, target, signal, lag);
    return { stop, done, lag };
  };

  return {
    /** Ships exactly these config databases from now on: starts the new ones, stops the others. */
    async ship(names: string[]): Promise<void> {
      for (const [name, shipper] of shippers) {
        if (names.includes(name)) continue;
        shippers.delete(name);
        shipper.stop.abort();
        runtime.log("oplog shipping stopped (point-in-time recovery switched off)", { databaseName: name });
      }
      const wanted = names.filter((name) => !shippers.has(name));
      if (wanted.length === 0) return;
      let targets: ShippingTarget[] = [];
      try {
        targets = await runtime.shippingTargets(wanted);
      } catch (error) {
        runtime.log("could not read the databases to ship the oplog of", { error: describeError(error) });
      }
      for (const name of wanted) {
        const target = targets.find((entry) => entry.name === name);
        if (!target) runtime.log("point-in-time recovery is on for a database this agent's config does not hold", { databaseName: name });
        else if (!shippers.has(name) && !job.signal.aborted) shippers.set(name, start(target));
      }
    },
    /** Each shipped database's lag, and how long it has not answered when it does not, for the heartbeat. */
    lagReport(): { database: string; seconds: number; unreachableSeconds?: number }[] {
      return [...shippers].map(([database, shipper]) => ({ database, ...shipper.lag.report() }));
    },
    /** Resolves once every shipper has ended (after the daemon's abort); what was not sealed is read again next start. */
    async stopped(): Promise<void> {
      for (const shipper of shippers.values()) shipper.stop.abort();
      await Promise.all([...shippers.values()].map((shipper) => shipper.done));
    },
  };
}

/** Ships one database until `signal` aborts; a server down at start, or a shipper that failed, is tried again. */
async function runShipper(job: JobContext, target: ShippingTarget, signal: AbortSignal, lag: LagMeter): Promise<void> {
  const { runtime } = job;
  const database = readUriDatabase(target.uri);
  if (!database) {
    runtime.log("point-in-time recovery needs one database: name it in the connection string", { databaseName: target.name });
    return;
  }
  while (!signal.aborted) {
    let client: MongoClient | undefined;
    try {
      client = await connectClient(target.uri, undefined, SHIPPING_SOCKET_TIMEOUT_MS).catch((error) => {
        // Nothing can be confirmed of a database not reached: its lag grows from here.
        lag.unreachable();
        throw error;
      });
      runtime.log("shipping the oplog (point-in-time recovery)", { databaseName: target.name });
      await shipOplog({
        client,
        database,
        sealing: target.sealing,
        store: new ShippingStore(target.stateDirectory),
        upload: (slice, body, uploadSignal) => runtime.client().uploadSlice(describeSliceForUpload(target.name, slice), body, uploadSignal),
        signal,
        lag,
        log: (message, fields) => runtime.log(message, { databaseName: target.name, ...fields }),
      });
    } catch (error) {
      runtime.log("oplog shipping stopped; starting it again shortly", { databaseName: target.name, error: describeError(error) });
      await pause(RECONNECT_DELAY_MS, signal);
    } finally {
      await client?.close().catch(() => undefined);
    }
  }
}

/** Waits `ms`, or less when shipping stops. */
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
