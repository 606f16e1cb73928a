// Writes mongodump-100.18.0-quoted-names.log and mongorestore-100.18.0-quoted-names.log: the real
// tools (testkit/mongo-tools.ts) dumping and restoring, against the project's test server, a
// database whose collection names mongo-tools prints Go-quoted ("…" with \n escaped) instead of
// in backticks (a backtick, a newline, control characters; quoted-names.ts lists them). The
// restore runs as the agent runs it, one
// --nsInclude/--nsFrom/--nsTo triple per collection into staging names. Run from the repo root:
//   node_modules/.bin/bun agent/test-data/mongo-tools-logs/capture-quoted-names.ts
import { writeFile } from "node:fs/promises";
import { MongoClient } from "mongodb";
import { findMongoTools } from "../../../testkit/mongo-tools.ts";
import { startMongoTestServer } from "../../../testkit/mongo-server/index.ts";
import { QUOTED_NAMES } from "./quoted-names.ts";

const { tools, missing } = findMongoTools();
if (missing !== null) throw new Error(missing);

const server = await startMongoTestServer();
const client = await new MongoClient(server.uri).connect();
try {
  for (const name of QUOTED_NAMES)
    await client
      .db("quoted")
      .collection(name)
      .insertMany([{ _id: 1 }, { _id: 2 }] as never[]);
  const escapePattern = (name: string) => name.replace(/[\\*]/g, (character) => `\\${character}`);
  // Asynchronously: the test server answers from this process.
  const run = async (args: string[], input?: Uint8Array) => {
    const child = Bun.spawn([...args, `--uri=${server.uri}`], { stdin: input ? new Blob([new Uint8Array(input)]) : "ignore", stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).bytes(), new Response(child.stderr).text(), child.exited]);
    if (code !== 0) throw new Error(`${args[0]} exited with ${code}: ${stderr}`);
    return { stdout, stderr };
  };
  const dump = await run([tools.mongodump, "--db=quoted", "--archive"]);
  const restore = await run(
    [
      tools.mongorestore,
      "--archive",
      "--drop",
      ...QUOTED_NAMES.flatMap((name) => {
        const source = escapePattern(`quoted.${name}`);
        return [`--nsInclude=${source}`, `--nsFrom=${source}`, `--nsTo=${escapePattern(`quoted.${name}.dbvault-restore-abc123`)}`];
      }),
    ],
    dump.stdout,
  );
  const directory = new URL(".", import.meta.url).pathname;
  await writeFile(`${directory}mongodump-100.18.0-quoted-names.log`, dump.stderr);
  await writeFile(`${directory}mongorestore-100.18.0-quoted-names.log`, restore.stderr);
} finally {
  await client.close();
  await server.stop();
}
