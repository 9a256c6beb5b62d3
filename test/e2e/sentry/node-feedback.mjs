// Sends, with a real @sentry/node in its own process: an exception with two attachments (a small one and one of
// <big> bytes), user feedback about it (captureFeedback), and a root span (which svc counts, not keeps).
// Usage: node node-feedback.mjs <dsn> <big attachment bytes>
// Prints `EVENT <id>` for the exception and one `SEND {"types":[...],"status":N}` line per envelope.
import * as Sentry from '@sentry/node';

const [dsn, bigArg = '0'] = process.argv.slice(2);
if (!dsn) {
  console.error('usage: node node-feedback.mjs <dsn> <big attachment bytes>');
  process.exit(2);
}
const sends = [];
Sentry.init({
  dsn,
  release: 'svc-e2e@1.2.3',
  environment: 'e2e',
  tracesSampleRate: 1,
  transport: (options) => {
    const inner = Sentry.makeNodeTransport(options);
    return {
      ...inner,
      send: async (envelope) => {
        const types = envelope[1].map((item) => item[0].type);
        const res = await inner.send(envelope);
        sends.push({ types, status: res?.statusCode ?? null });
        return res;
      },
    };
  },
});

function checkout() {
  throw new TypeError('card declined');
}

let eventId;
Sentry.withScope((scope) => {
  scope.addAttachment({ filename: 'cart.json', data: '{"items":3}', contentType: 'application/json' });
  scope.addAttachment({ filename: 'big.bin', data: new Uint8Array(Number(bigArg)).fill(7) });
  try {
    checkout();
  } catch (err) {
    eventId = Sentry.captureException(err);
  }
});
Sentry.captureFeedback({
  message: 'The checkout button did nothing',
  name: 'Jane Doe',
  email: 'jane@example.com',
  url: 'https://shop.example/checkout',
  associatedEventId: eventId,
});
Sentry.startSpan({ name: 'GET /checkout', op: 'http.server' }, () => undefined);
await Sentry.flush(5000);
console.log(`EVENT ${eventId}`);
for (const s of sends) console.log(`SEND ${JSON.stringify(s)}`);
