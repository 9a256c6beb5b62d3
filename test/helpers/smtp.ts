import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A message as the loopback SMTP receiver got it. */
export interface ReceivedMail {
  readonly from: string;
  readonly to: readonly string[];
  /** The raw message with quoted-printable soft breaks and escapes undone (good enough to search). */
  readonly text: string;
  readonly subject: string;
  /** Whether the session was upgraded with STARTTLS (or was TLS from the start). */
  readonly secure: boolean;
  /** The user that authenticated, if any. */
  readonly user: string | null;
}

/** Undoes quoted-printable encoding: soft line breaks and =XX escapes. */
function decodeQp(s: string): string {
  const bytes = s
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/**
 * A real SMTP server on 127.0.0.1 (the npm smtp-server package): records every message. With `auth`, clients must
 * log in (over STARTTLS, which it offers with its built-in self-signed certificate); `reject(rcpt)` answers 550
 * for a recipient while it returns true.
 */
export async function startSmtpReceiver(
  opts: {
    auth?: { user: string; pass: string };
    starttls?: boolean;
    reject?: (rcpt: string) => boolean;
    /** While it returns true, RCPT TO is never answered (a sender stuck mid-send); `stalled` counts them. */
    stall?: () => boolean;
  } = {},
): Promise<{
  url: string;
  port: number;
  messages: ReceivedMail[];
  errors: Error[];
  readonly stalled: number;
  close(): Promise<void>;
}> {
  const messages: ReceivedMail[] = [];
  /** Server errors other than a sender's connection reset: a test can assert there are none. */
  const errors: Error[] = [];
  let stalled = 0;
  const server = new SMTPServer({
    disabledCommands: [...(opts.auth ? [] : ['AUTH']), ...(opts.starttls ? [] : ['STARTTLS'])],
    authOptional: !opts.auth,
    logger: false,
    disableReverseLookup: true,
    onAuth(auth, _session, cb) {
      if (opts.auth && auth.username === opts.auth.user && auth.password === opts.auth.pass)
        cb(null, { user: auth.username });
      else cb(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, cb) {
      if (opts.stall?.()) {
        stalled++;
        return;
      }
      if (opts.reject?.(address.address)) {
        const err = new Error('mailbox unavailable') as Error & { responseCode: number };
        err.responseCode = 550;
        cb(err);
        return;
      }
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('latin1');
        const text = decodeQp(raw);
        const subject = /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(raw)?.[1]?.replace(/\r?\n[ \t]/g, ' ') ?? '';
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          text,
          subject,
          secure: session.secure,
          user: (session.user as string | undefined) ?? null,
        });
        cb();
      });
    },
  });
  // A sender killed mid-session (the kill tests do it on purpose) resets its connection; smtp-server reports that as
  // an 'error' event, which without a listener would end the test process.
  server.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') errors.push(err);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    errors,
    get stalled() {
      return stalled;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
