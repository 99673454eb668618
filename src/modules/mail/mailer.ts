// Mail, through nodemailer (maintained, the usual Node SMTP client): invite and password reset links
// are sent only when SMTP_URL is set. The URL holds the server's password: it is handed to nodemailer
// and never logged, and nodemailer's own logger stays off (it would print the messages, links and all).
import nodemailer from 'nodemailer';
import type { Config } from '../../config.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** Sends `message`; rejects when the server refuses it or cannot be reached in time. */
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** How long a mail server may take to answer at each step before the send gives up. */
const TIMEOUT_MS = 10_000;

/** The mailer SMTP_URL names, or undefined when nothing is to be mailed. */
export function createMailer(config: Pick<Config, 'smtpUrl' | 'mailFrom'>): Mailer | undefined {
  if (!config.smtpUrl) return undefined;
  const transport = nodemailer.createTransport({
    url: config.smtpUrl,
    logger: false,
    debug: false,
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
  });
  return {
    async send(message) {
      await transport.sendMail({ ...message, from: config.mailFrom });
    },
    close: () => transport.close(),
  };
}
