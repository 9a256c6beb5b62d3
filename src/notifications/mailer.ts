import type { Transporter } from 'nodemailer';

/** One e-mail to one recipient, with a text and an HTML part. */
export interface Mail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

/** Sends e-mail (a port: SMTP in production, the same SMTP to a loopback receiver in tests). */
export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/**
 * The SMTP mailer over nodemailer: `smtps://` connects with TLS; `smtp://` upgrades with STARTTLS whenever the
 * server offers it (nodemailer's default), and query parameters such as `?tls.rejectUnauthorized=false` pass
 * through to nodemailer. Connections are not pooled: notification volume is small and each send is a job.
 */
export function smtpMailer(url: string, from: string, timeoutMs: number): Mailer {
  // nodemailer is loaded with the first e-mail: most processes never send one (docs/benchmarks.md, Memory).
  let transport: Promise<Transporter> | undefined;
  const connect = async () => {
    const { createTransport } = await import('nodemailer');
    const t = createTransport(url, { from });
    // nodemailer's connection options come from the URL; the timeouts bound a stuck server.
    const opts = t.options as Record<string, unknown>;
    opts.connectionTimeout = timeoutMs;
    opts.greetingTimeout = timeoutMs;
    opts.socketTimeout = timeoutMs;
    return t;
  };
  return {
    async send(mail) {
      transport ??= connect();
      await (await transport).sendMail({
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
      });
    },
  };
}
