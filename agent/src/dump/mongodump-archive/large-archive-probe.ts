// The measured half of large-archive.test.ts, run in a process of its own
// (testkit/run-isolated.ts) so that only this stream's memory is counted.
import { Binary } from "bson";
import { readMongodumpArchive } from "./read-archive.ts";
import { toBson } from "./test-support.ts";
import type { ArchivePrelude, ArchiveWriteItem } from "./types.ts";
import { writeMongodumpArchive } from "./write-archive.ts";

const NAMESPACES = ["big.events", "big.users", "other.logs"];
const SMALL_DOCUMENTS = 80_000;
const HUGE_EVERY = 10_000; // one ~16 MiB document every this many small ones
const ID_OFFSET = 4 + 1 + 4; // length, type byte, "_id\0": where the int32 _id value starts

function makeTemplate(namespace: string, payloadBytes: number): Uint8Array {
  return toBson({ _id: 0, namespace, payload: new Binary(new Uint8Array(payloadBytes).fill(namespace.length)) });
}

async function* generateItems(): AsyncGenerator<ArchiveWriteItem> {
  const templates = NAMESPACES.map((namespace) => makeTemplate(namespace, 8000));
  const huge = makeTemplate("big.events", 16 * 1024 * 1024 - 100);
  for (let n = 0; n < SMALL_DOCUMENTS; n++) {
    // Runs of 50 documents per namespace, like parallel cursors feeding one archive.
    const which = Math.floor(n / 50) % NAMESPACES.length;
    const bytes = templates[which]!.slice();
    new DataView(bytes.buffer).setInt32(ID_OFFSET, n, true);
    yield { kind: "document", namespace: NAMESPACES[which]!, bytes };
    if (n % HUGE_EVERY === HUGE_EVERY - 1) yield { kind: "document", namespace: "big.events", bytes: huge.slice() };
  }
}

/** Writes ~780 MB of generated documents and reads them back in one pass; reports counts, CRCs and RSS growth. */
export async function streamLargeArchive() {
  const prelude: ArchivePrelude = {
    header: { serverVersion: "7.0.0" },
    collections: NAMESPACES.map((namespace) => {
      const [db, collection] = namespace.split(".") as [string, string];
      return { db, collection, type: "collection" };
    }),
  };
  Bun.gc(true);
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  let warmedUp = 0; // RSS once a quarter of the stream has passed and the heap has grown to its working size
  let documents = 0;
  let documentBytes = 0;
  let archiveBytes = 0;
  const crcOk: boolean[] = [];
  const started = performance.now();
  for await (const event of readMongodumpArchive(writeMongodumpArchive(prelude, generateItems()))) {
    if (event.kind === "document") {
      documents++;
      documentBytes += event.bytes.length;
      if (documents % 2000 === 0) {
        const rss = process.memoryUsage().rss;
        peak = Math.max(peak, rss);
        if (warmedUp === 0 && documents >= SMALL_DOCUMENTS / 4) warmedUp = rss;
      }
    } else if (event.kind === "namespace-end") {
      crcOk.push(event.crcOk);
    } else if (event.kind === "end") {
      archiveBytes = event.archiveBytes;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const growthMb = (peak - baseline) / 1024 / 1024;
  const lateGrowthMb = (peak - warmedUp) / 1024 / 1024;
  console.log(
    `streamed ${(archiveBytes / 1e6).toFixed(0)} MB in ${seconds.toFixed(1)} s ` +
      `(${(archiveBytes / 1e6 / seconds).toFixed(0)} MB/s written+read), RSS growth ${growthMb.toFixed(0)} MiB, ${lateGrowthMb.toFixed(0)} MiB after the first quarter`,
  );
  return { documents, documentBytes, crcOk, growthMb };
}
