import nodemailer from "nodemailer";
import type { Logger } from "../../lib/logger";

export type Mail = { to: string; subject: string; text: string };

export type Mailer = {
  /** Sends one message; throws a MailError when the transport refuses it or gives up waiting. */
  send(mail: Mail): Promise<void>;
  close(): void;
};

/**
 * How long the mail server may take to accept a connection, to greet, and to answer each command.
 * Without these nodemailer waits up to 10 minutes on a silent server, longer than the outbox's
 * lease (another instance would send the mail too) and than anyone waits for a test e-mail.
 */
export const MAIL_TIMEOUT_MS = 20_000;

/**
 * Why a mail was not sent, in words safe to log and store (the server's answer or the network
 * error, never SMTP_URL or its password). `permanent`: the mail server refused the recipient for
 * good (5xx), so trying again cannot help.
 */
export class MailError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = "MailError";
  }
}

type NodemailerError = { code?: string; responseCode?: number; response?: string; command?: string };

/** Turns nodemailer's error into a MailError. */
export function describeMailFailure(error: unknown): MailError {
  const { code, responseCode, response, command } = (error ?? {}) as NodemailerError;
  if (responseCode) {
    const permanent = responseCode >= 500 && code === "EENVELOPE";
    return new MailError(`The mail server answered ${command ? `${command} with ` : ""}${response ?? responseCode}`.slice(0, 500), permanent);
  }
  if (code === "ETIMEDOUT") return new MailError("The mail server did not answer in time.", false);
  const network = (error as { cause?: { code?: string } })?.cause?.code;
  return new MailError(`Could not reach the mail server: ${network ?? code ?? "unknown error"}.`, false);
}

/**
 * Mail goes through SMTP when SMTP_URL is set (nodemailer), otherwise it is written to the log:
 * on embedded defaults a self-hoster still sees what would have been sent (e.g. reset links).
 * `timeoutMs` (default MAIL_TIMEOUT_MS) bounds each wait on the mail server.
 */
export function createMailer(options: { smtpUrl: string | null; from: string; log: Logger; timeoutMs?: number }): Mailer {
  const { smtpUrl, from, log } = options;
  if (!smtpUrl) {
    return {
      async send(mail) {
        log.info("mail (log transport; set SMTP_URL to deliver)", { to: mail.to, subject: mail.subject, body: mail.text });
      },
      close() {},
    };
  }
  const timeoutMs = options.timeoutMs ?? MAIL_TIMEOUT_MS;
  const transport = nodemailer.createTransport({ url: smtpUrl, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs } as never);
  return {
    async send(mail) {
      try {
        await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
      } catch (error) {
        throw describeMailFailure(error);
      }
      log.info("mail sent", { to: mail.to, subject: mail.subject });
    },
    close: () => transport.close(),
  };
}
