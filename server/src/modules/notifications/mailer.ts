import nodemailer from "nodemailer";
import type { Logger } from "../../lib/logger";

export type Mail = { to: string; subject: string; text: string };

export type Mailer = {
  /** Sends one message; throws when the transport refuses it. */
  send(mail: Mail): Promise<void>;
  close(): void;
};

/**
 * Mail goes through SMTP when SMTP_URL is set (nodemailer), otherwise it is written to the log:
 * on embedded defaults a self-hoster still sees what would have been sent (e.g. reset links).
 */
export function createMailer(options: { smtpUrl: string | null; from: string; log: Logger }): Mailer {
  const { smtpUrl, from, log } = options;
  if (!smtpUrl) {
    return {
      async send(mail) {
        log.info("mail (log transport; set SMTP_URL to deliver)", { to: mail.to, subject: mail.subject, body: mail.text });
      },
      close() {},
    };
  }
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
      log.info("mail sent", { to: mail.to, subject: mail.subject });
    },
    close: () => transport.close(),
  };
}
