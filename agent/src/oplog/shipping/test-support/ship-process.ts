// A shipper in a process of its own, so a test can SIGKILL it mid-flight as a crash would:
// bun ship-process.ts URI DATABASE DIRECTORY KEY_HEX (state in DIRECTORY/state, the stand-in
// server in DIRECTORY/server). Prints "sealed N" per slice; SIGTERM stops it.
import { MongoClient } from "mongodb";
import { shipToDirectory } from "./slice-sink.ts";

const [uri, database, directory, keyHex] = process.argv.slice(2) as [string, string, string, string];
const client = await new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 }).connect();
const shipper = shipToDirectory(client, database, Buffer.from(keyHex, "hex"), directory, {
  maxAgeMs: 200,
  idleSealMs: 500,
  retryDelayMs: 100,
  log: (message) => console.error(message),
  onSealed: (slice) => console.log(`sealed ${slice.sequence}`),
});
process.on("SIGTERM", async () => {
  await shipper.stop();
  await client.close();
});
