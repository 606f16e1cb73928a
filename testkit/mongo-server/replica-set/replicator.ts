// How a secondary member keeps up with its primary: it tails the primary's `local.oplog.rs` over
// the wire (a tailable awaitData cursor through the driver, as a mongod's oplog fetcher does
// over its own connection), applies each entry to its own data with applyOps, and keeps the
// entry unchanged in its own oplog, so that readers of the secondary's oplog (oplog shipping
// from a secondary, as PBM does) see the primary's positions. Initial sync is the primary's
// whole oplog replayed from its first entry: a secondary must be started before the primary's
// oplog drops anything. Transactions split over several entries (partialTxn) are not applied.
import { MongoClient, type Timestamp } from "mongodb";
import { Long } from "bson";
import { parseStoredDocument } from "../collection-state";
import type { ServerContext } from "../command-context";
import { applyReplicatedEntry } from "../dispatch";
import type { ReplicaSet } from "./replica-set";

export type Replicator = { stop(): Promise<void> };

/** Starts copying the oplog at `primaryUri` into this member (`server`, whose replica set is a secondary). */
export function startReplicator(server: ServerContext, replicaSet: ReplicaSet, primaryUri: string): Replicator {
  const client = new MongoClient(primaryUri, { directConnection: true, serverSelectionTimeoutMS: 5_000 });
  let stopped = false;
  const run = async (): Promise<void> => {
    let after: Timestamp | undefined;
    while (!stopped) {
      try {
        const cursor = client
          .db("local")
          .collection("oplog.rs")
          .find(after ? { ts: { $gt: after } } : {}, { tailable: true, awaitData: true, maxAwaitTimeMS: 200, raw: true });
        while (!stopped) {
          const raw = (await cursor.tryNext()) as unknown as Uint8Array | null;
          if (!raw) {
            if (cursor.closed) break;
            continue;
          }
          const bytes = Buffer.from(raw);
          const entry = parseStoredDocument(bytes);
          applyReplicatedEntry(server, bytes);
          const ts = entry.ts as Timestamp;
          if (Long.isLong(entry.t)) replicaSet.term = entry.t.toNumber();
          replicaSet.oplog.appendReplicated(bytes, { ts, t: Long.fromNumber(replicaSet.term) }, entry.wall as Date);
          after = ts;
        }
        await cursor.close().catch(() => undefined);
      } catch (error) {
        if (stopped) return;
        // The primary restarted or stepped down: fetch again from the last applied entry, as a
        // secondary does, after a short pause so a stopped primary is not polled in a tight loop.
        console.error(`mongo test server: replication from ${primaryUri} paused: ${String(error)}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  };
  const done = run();
  return {
    async stop() {
      stopped = true;
      await client.close(true).catch(() => undefined);
      await done;
    },
  };
}
