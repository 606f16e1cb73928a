// A real SMTP server (npm smtp-server) run as its own process by tests: it accepts every message
// on loopback and serves what it received as JSON over HTTP, so a test can read the mail a user
// would get (reset links, notifications) exactly as it went over the wire.
//   bun testkit/smtp-sink.ts  ->  prints {"smtpPort":…, "httpPort":…} on its first line
import { SMTPServer } from "smtp-server";

type Received = { from: string; to: string[]; raw: string; subject: string; text: string };
const received: Received[] = [];

function parse(raw: string) {
  const [head = "", ...bodyParts] = raw.split(/\r?\n\r?\n/);
  const subject = head.match(/^Subject: (.*)$/im)?.[1]?.trim() ?? "";
  let text = bodyParts.join("\n\n");
  if (/content-transfer-encoding: quoted-printable/i.test(raw)) {
    text = text.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  }
  return { subject, text: text.replace(/\r\n/g, "\n") };
}

const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS"],
  logger: false,
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      received.push({
        from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
        to: session.envelope.rcptTo.map((r) => r.address),
        raw,
        ...parse(raw),
      });
      callback();
    });
  },
});

await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", () => resolve()));
const smtpPort = (smtp.server.address() as { port: number }).port;
const http = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(request) {
    if (new URL(request.url).pathname === "/messages") return Response.json(received);
    return new Response("not found", { status: 404 });
  },
});
console.log(JSON.stringify({ smtpPort, httpPort: http.port }));
