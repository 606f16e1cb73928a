// A real SMTP server (npm smtp-server) run as its own process by tests: it accepts every message
// on loopback and serves what it received as JSON over HTTP, so a test can read the mail a user
// would get (reset links, notifications) exactly as it went over the wire. Its mode, set over HTTP
// (POST /mode/<mode>), plays a mail server in trouble: "tempfail" answers 451 (try again later),
// "reject" answers 550 to every recipient, "hang" never answers MAIL FROM.
//   bun testkit/smtp-sink.ts  ->  prints {"smtpPort":…, "httpPort":…} on its first line
import { SMTPServer } from "smtp-server";

type Received = { from: string; to: string[]; raw: string; subject: string; text: string };
const received: Received[] = [];
const modes = ["accept", "tempfail", "reject", "hang"] as const;
let mode: (typeof modes)[number] = "accept";

const refusal = (message: string, responseCode: number) => Object.assign(new Error(message), { responseCode });

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
  onMailFrom(_address, _session, callback) {
    if (mode === "tempfail") return callback(refusal("Mail system busy, try again later", 451));
    if (mode === "hang") return; // the client waits for an answer that never comes
    callback();
  },
  onRcptTo(_address, _session, callback) {
    if (mode === "reject") return callback(refusal("Mailbox unavailable", 550));
    callback();
  },
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
    const { pathname } = new URL(request.url);
    if (pathname === "/messages") return Response.json(received);
    const wanted = pathname.match(/^\/mode\/(\w+)$/)?.[1];
    if (request.method === "POST" && modes.includes(wanted as typeof mode)) {
      mode = wanted as typeof mode;
      return new Response("ok");
    }
    return new Response("not found", { status: 404 });
  },
});
console.log(JSON.stringify({ smtpPort, httpPort: http.port }));
