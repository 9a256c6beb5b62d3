// Sends, with a real @sentry/node, one exception of the same bug in the release given.
// Usage: node node-release.mjs <dsn> <release>
// Prints one `SEND {"types":[...],"status":N}` line per envelope the SDK delivered.
import * as Sentry from '@sentry/node';

const [dsn, release] = process.argv.slice(2);
const sends = [];
Sentry.init({
  dsn,
  release,
  environment: 'production',
  transport: (options) => {
    const inner = Sentry.makeNodeTransport(options);
    return {
      ...inner,
      send: async (envelope) => {
        const res = await inner.send(envelope);
        sends.push({ types: envelope[1].map((item) => item[0].type), status: res?.statusCode ?? null });
        return res;
      },
    };
  },
});

function checkout(cart) {
  return cart.total.amount;
}

try {
  checkout({});
} catch (err) {
  Sentry.captureException(err);
}
await Sentry.close(5000);
for (const s of sends) console.log(`SEND ${JSON.stringify(s)}`);
