// Runs the DBVault MongoDB test server as its own process, for clients that cannot share the test
// runner's process (a compiled agent binary, browser tests). It exists because no MongoDB server
// can be installed here or in CI; it is a test double for dump/restore, not a database (index.ts).
//   bun testkit/mongo-server/main.ts [--port N] [--user NAME:PASSWORD]... [--replSet NAME] [--oplogSizeMB N]
// The first stdout line is the connection URI; the server runs until the process is signalled.
import { startMongoTestServer } from "./server";
import type { TestUser } from "./command-context";

function readArguments(argv: string[]): { port: number; users: TestUser[]; replSet?: string; oplogSizeMB?: number } {
  let port = 0;
  let replSet: string | undefined;
  let oplogSizeMB: number | undefined;
  const users: TestUser[] = [];
  for (let i = 0; i < argv.length; i++) {
    const value = argv[i + 1];
    if (argv[i] === "--port" && value !== undefined && /^\d+$/.test(value)) {
      port = Number(value);
      i++;
    } else if (argv[i] === "--user" && value?.includes(":")) {
      const at = value.indexOf(":");
      users.push({ username: value.slice(0, at), password: value.slice(at + 1) });
      i++;
    } else if (argv[i] === "--replSet" && value && !value.startsWith("-")) {
      replSet = value;
      i++;
    } else if (argv[i] === "--oplogSizeMB" && value !== undefined && /^\d+$/.test(value) && Number(value) > 0) {
      // As mongod's --oplogSize: the benches keep an hour of writes (bench/pitr-restore.ts).
      oplogSizeMB = Number(value);
      i++;
    } else {
      console.error(
        `mongo-test-server: unknown argument '${argv[i]}'\nhint: usage: bun testkit/mongo-server/main.ts [--port N] [--user NAME:PASSWORD] [--replSet NAME] [--oplogSizeMB N]`,
      );
      process.exit(2);
    }
  }
  return { port, users, replSet, oplogSizeMB };
}

const { port, users, replSet, oplogSizeMB } = readArguments(process.argv.slice(2));
const replicaSet = replSet ? { name: replSet, ...(oplogSizeMB ? { oplogSizeBytes: oplogSizeMB * 1024 * 1024 } : {}) } : undefined;
const server = await startMongoTestServer({ port, users, ...(replicaSet ? { replicaSet } : {}) });
console.log(server.uri);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    void server.stop().then(() => process.exit(0));
  });
}
