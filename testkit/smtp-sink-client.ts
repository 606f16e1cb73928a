import { join } from "node:path";
import { waitUntil } from "./wait-until";

export type ReceivedMail = { from: string; to: string[]; raw: string; subject: string; text: string };

export type SmtpSink = {
  smtpUrl: string;
  /** Every message received so far. */
  messages(): Promise<ReceivedMail[]>;
  /** Waits (up to timeoutMs) for a message to `to` matching `subject`. */
  waitFor(to: string, subject: RegExp, timeoutMs?: number): Promise<ReceivedMail>;
  /** Plays a mail server in trouble (see smtp-sink.ts), or a healthy one again ("accept"). */
  setMode(mode: "accept" | "tempfail" | "reject" | "hang"): Promise<void>;
  stop(): void;
};

/** Starts testkit/smtp-sink.ts as a child process. */
export async function startSmtpSink(): Promise<SmtpSink> {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "smtp-sink.ts")], { stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  let buffered = "";
  while (!buffered.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("smtp sink exited before it was ready");
    buffered += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const { smtpPort, httpPort } = JSON.parse(buffered.split("\n")[0]!) as { smtpPort: number; httpPort: number };
  const messages = async () => (await (await fetch(`http://127.0.0.1:${httpPort}/messages`)).json()) as ReceivedMail[];
  return {
    smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
    messages,
    waitFor: (to, subject, timeoutMs = 15_000) =>
      waitUntil(async () => (await messages()).find((m) => m.to.includes(to) && subject.test(m.subject)), {
        timeout: timeoutMs,
        interval: 50,
        message: `a mail to ${to} matching ${subject}`,
      }),
    async setMode(mode) {
      const res = await fetch(`http://127.0.0.1:${httpPort}/mode/${mode}`, { method: "POST" });
      if (!res.ok) throw new Error(`smtp sink refused mode ${mode}`);
    },
    stop: () => child.kill(),
  };
}
