// E-mail alerts when the mail server is in trouble, against a real SMTP server process
// (testkit/smtp-sink.ts) that can answer 451 (try later), 550 (no such mailbox) or hang: an alert
// is kept and retried until it is delivered (across a restart), a hanging server holds up neither
// the job that raised the alert nor anything else, and several instances send each mail once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { agents, mailOutbox } from "@db/schema";
import { createContext } from "../src/bootstrap";
import { silentLogger } from "../src/lib/logger";
import { sweepAgentStatuses } from "../src/modules/agents/service";
import { createMailer } from "../src/modules/mail/mailer";
import { notifyBackupsSkipped } from "../src/modules/notifications/service";
import { startBackgroundJobs } from "../src/modules/scheduler";
import { startSmtpSink, type SmtpSink } from "../../testkit/smtp-sink-client";
import { waitUntil } from "../../testkit/wait-until";
import { startTestServer, type TestServer } from "./harness";

/** Later than any retry of the first few attempts, whatever their jitter. */
const PAST_EARLY_RETRIES_MS = 10 * 60_000;

let smtp: SmtpSink;
let server: TestServer;

beforeAll(async () => {
  smtp = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: smtp.smtpUrl });
});
afterAll(async () => {
  await smtp.setMode("accept");
  await server.close();
  smtp.stop();
});

const mailsTo = async (to: string, subject: RegExp) => (await smtp.messages()).filter((m) => m.to.includes(to) && subject.test(m.subject));

/** Runs the server's background jobs (as main.ts does) with time moved past the early retries, until `until` holds. */
async function runJobsUntil<T>(until: () => Promise<T | false | undefined>) {
  const realNow = server.ctx.now;
  server.ctx.now = () => new Date(Date.now() + PAST_EARLY_RETRIES_MS);
  const stop = startBackgroundJobs(server.ctx, 100);
  try {
    return await waitUntil(until, { timeout: 20_000, message: "the background jobs to send the mail" });
  } finally {
    stop();
    server.ctx.now = realNow;
    await server.ctx.pendingWork.settled();
  }
}

describe("e-mail alerts when the mail server is in trouble", () => {
  test("an alert refused with 451 (try later) is kept across a restart and arrives once the mail server accepts again", async () => {
    const user = await server.registerUser();
    const subject = /Scheduled backups paused: agent tempfail-agent is offline/;
    await smtp.setMode("tempfail");
    await notifyBackupsSkipped(server.ctx, { organizationId: user.id, name: "tempfail-agent", hostname: "db1" }, ["shop"]);
    await server.ctx.pendingWork.settled();
    expect(await mailsTo(user.email, subject)).toHaveLength(0);

    await server.restart();
    await smtp.setMode("accept");
    await runJobsUntil(async () => (await mailsTo(user.email, subject)).length > 0);
    const [mail] = await mailsTo(user.email, subject);
    expect(mail!.text).toContain(`The scheduled backup of "shop" was skipped`);
    // Delivered once: later passes do not send it again.
    await runJobsUntil(async () => true);
    expect(await mailsTo(user.email, subject)).toHaveLength(1);
  }, 60_000);

  test("a mail server that never answers holds up neither the agent sweep that raised the alert nor the alert itself for long", async () => {
    const user = await server.registerUser();
    // The server's own timeouts are tens of seconds; a short one keeps this test fast, and is the
    // same code path (createMailer with its timeout).
    const realMailer = server.ctx.mailer;
    server.ctx.mailer = createMailer({ smtpUrl: smtp.smtpUrl, from: server.ctx.config.mailFrom, log: silentLogger, timeoutMs: 1_000 });
    try {
      await server.ctx.db
        .insert(agents)
        .values({ organizationId: user.id, name: "hung-mail-agent", status: "active", lastSeen: new Date(Date.now() - 3_600_000) });
      await smtp.setMode("hang");
      const started = performance.now();
      const swept = await Promise.race([sweepAgentStatuses(server.ctx).then(() => "swept"), Bun.sleep(5_000).then(() => "still waiting for the mail server")]);
      expect(swept).toBe("swept");
      expect(performance.now() - started).toBeLessThan(5_000);

      // The attempt that hung gives up at the mailer's timeout; the alert is sent once the server answers.
      await server.ctx.pendingWork.settled();
      await smtp.setMode("accept");
      await runJobsUntil(async () => (await mailsTo(user.email, /Agent disconnected: hung-mail-agent/)).length > 0);
    } finally {
      server.ctx.mailer.close();
      server.ctx.mailer = realMailer;
    }
  }, 60_000);

  test("a recipient refused for good (550) is not retried", async () => {
    const user = await server.registerUser();
    await smtp.setMode("reject");
    await notifyBackupsSkipped(server.ctx, { organizationId: user.id, name: "refused-agent", hostname: null }, ["shop"]);
    await server.ctx.pendingWork.settled();
    await smtp.setMode("accept");
    await runJobsUntil(async () => true);
    expect(await mailsTo(user.email, /refused-agent/)).toHaveLength(0);
  }, 60_000);

  test("a reset link asked for while the mail server answers 451 gets the usual answer, and arrives once it accepts", async () => {
    const user = await server.registerUser();
    await smtp.setMode("tempfail");
    const asked = await server.call("POST", "/api/auth/forgot-password", { body: { email: user.email } });
    const unknown = await server.call("POST", "/api/auth/forgot-password", { body: { email: `nobody-${user.email}` } });
    expect([asked.status, asked.body]).toEqual([unknown.status, unknown.body]);
    expect(asked.body).toEqual({ message: "If an account with that email exists, a password reset link has been sent." });
    await server.ctx.pendingWork.settled();
    const queuedBodies = async () =>
      (await server.ctx.db.select({ body: mailOutbox.body }).from(mailOutbox).where(eq(mailOutbox.recipient, user.email))).map((row) => row.body);
    const [waiting] = await queuedBodies();
    await smtp.setMode("accept");
    const [mail] = await runJobsUntil(async () => {
      const mails = await mailsTo(user.email, /Reset your DBVault password/);
      return mails.length > 0 && mails;
    });
    const link = /reset-password\/([A-Za-z0-9_-]+)/.exec(mail!.text);
    expect(link).not.toBeNull();
    // The token is kept hashed elsewhere: the queue holds the mail sealed, and nothing once it is sent.
    expect(waiting).toBeDefined();
    expect(waiting).not.toContain(link![1]!);
    expect(waiting).not.toContain("reset-password");
    await waitUntil(async () => (await queuedBodies()).every((body) => body === ""), { message: "the sent mail's body to be emptied" });
  }, 60_000);

  test("two instances sending from one queue send each alert once", async () => {
    const user = await server.registerUser();
    const other = await createContext(server.ctx.config, server.ctx.database, { log: silentLogger });
    try {
      await smtp.setMode("tempfail");
      for (let i = 0; i < 6; i++) await notifyBackupsSkipped(server.ctx, { organizationId: user.id, name: `once-${i}`, hostname: null }, ["shop"]);
      await server.ctx.pendingWork.settled();
      await smtp.setMode("accept");
      const later = () => new Date(Date.now() + PAST_EARLY_RETRIES_MS);
      server.ctx.now = later;
      other.now = later;
      server.ctx.mail.kick();
      other.mail.kick();
      await Promise.all([server.ctx.pendingWork.settled(), other.pendingWork.settled()]);
      const sent = await mailsTo(user.email, /Scheduled backups paused: agent once-/);
      expect(sent.map((m) => m.subject).sort()).toEqual(Array.from({ length: 6 }, (_, i) => `Scheduled backups paused: agent once-${i} is offline`));
    } finally {
      server.ctx.now = () => new Date();
      other.mailer.close();
      await other.bus.stop();
    }
  }, 60_000);
});
