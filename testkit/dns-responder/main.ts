// A test's name server: answers A, SRV and TXT queries from a zone given as JSON, over UDP on
// 127.0.0.1:53 (or --port). Run inside a network namespace whose /etc/netns/NAME/resolv.conf names
// 127.0.0.1, it is the only resolver programs started with `ip netns exec NAME` see (glibc's, Go's
// and c-ares', which Bun's and Node's dns modules use).
//   bun testkit/dns-responder/main.ts --zone FILE [--port N]
// Prints "listening on 127.0.0.1:PORT" once it answers; serves until signalled. The zone file is
// read again on every query, so a test can change records while it runs.
import { readFileSync } from "node:fs";
import { readQuestion, writeAnswer, type Zone } from "./packet";

function readArguments(argv: string[]): { zoneFile: string; port: number } {
  let zoneFile: string | undefined;
  let port = 53;
  for (let i = 0; i < argv.length; i += 2) {
    if (argv[i] === "--zone" && argv[i + 1]) zoneFile = argv[i + 1];
    else if (argv[i] === "--port" && /^\d+$/.test(argv[i + 1] ?? "")) port = Number(argv[i + 1]);
    else {
      console.error(`dns-responder: unknown argument '${argv[i]}'\nhint: usage: bun testkit/dns-responder/main.ts --zone FILE [--port N]`);
      process.exit(2);
    }
  }
  if (!zoneFile) {
    console.error("dns-responder: --zone FILE is required");
    process.exit(2);
  }
  return { zoneFile, port };
}

const { zoneFile, port } = readArguments(process.argv.slice(2));
const socket = await Bun.udpSocket({
  hostname: "127.0.0.1",
  port,
  socket: {
    data(self, data, remotePort, remoteAddress) {
      const question = readQuestion(Buffer.from(data));
      if (!question) return;
      const zone = JSON.parse(readFileSync(zoneFile, "utf8")) as Zone;
      self.send(writeAnswer(question, zone), remotePort, remoteAddress);
    },
  },
});
console.log(`listening on 127.0.0.1:${socket.port}`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    socket.close();
    process.exit(0);
  });
}
