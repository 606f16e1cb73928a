// A shipper in a process of its own, so a test can SIGKILL it mid-flight as a crash would:
// bun ship-process.ts URI DATABASE STATE_DIR OUT_DIR KEY_HEX. Prints "sealed N" per slice.
import { MongoClient } from "mongodb";
import { ShippingStore } from "../shipping-store.ts";
import { shipOplog } from "../ship-oplog.ts";
import { uploadToDirectory } from "./slice-sink.ts";

const [uri, database, stateDir, outDir, keyHex] = process.argv.slice(2) as [string, string, string, string, string];
const client = await new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 }).connect();
const abort = new AbortController();
process.on("SIGTERM", () => abort.abort());
await shipOplog({
  client,
  database,
  masterKey: Buffer.from(keyHex, "hex"),
  store: new ShippingStore(stateDir),
  upload: uploadToDirectory(outDir),
  signal: abort.signal,
  log: (message) => console.error(message),
  maxAgeMs: 200,
  idleSealMs: 500,
  retryDelayMs: 100,
  onSealed: (slice) => console.log(`sealed ${slice.sequence}`),
});
await client.close();
