// Run as its own process by test-server-writes.ts --tail: reads the test server's oplog as the
// agent's shipping does (a tailable awaitData cursor after the newest entry, 1,000 entries a
// batch, raw bytes), as fast as the server answers, until stdin closes; then prints the count.
//   bun bench/support/tail-oplog.ts URI
import { type Document, MongoClient, type Timestamp } from "mongodb";

const client = await new MongoClient(process.argv[2]!).connect();
const oplog = client.db("local").collection("oplog.rs");
const [newest] = await oplog.find({}, { sort: { $natural: -1 }, limit: 1, projection: { ts: 1 } }).toArray();
const cursor = oplog.find<Document>(
  { ts: { $gt: newest!.ts as Timestamp } },
  { tailable: true, awaitData: true, maxAwaitTimeMS: 1000, batchSize: 1000, raw: true },
);
let entries = 0;
let reading = true;
process.stdin.on("end", () => (reading = false));
process.stdin.resume();
console.log("tailing");
while (reading) if ((await cursor.tryNext()) !== null) entries++;
await cursor.close();
await client.close();
console.log(entries);
