// Sends one exception per user id and one message with a real @sentry/node, in its own process so the SDK's
// global state never touches the test process.
// Usage: node node-send.mjs <package: @sentry/node | @sentry/node-7> <dsn> <user ids, comma-separated>
// Prints one `SEND {"types":[...],"status":N}` line per envelope the SDK delivered.
const [pkg, dsn, usersArg = '42'] = process.argv.slice(2);
if (!pkg || !dsn) {
  console.error('usage: node node-send.mjs <package> <dsn> [user ids]');
  process.exit(2);
}
const mod = await import(pkg);
const Sentry = typeof mod.init === 'function' ? mod : mod.default;
const users = usersArg.split(',');
const sends = [];

Sentry.init({
  dsn,
  release: 'svc-e2e@1.2.3',
  environment: 'e2e',
  serverName: 'e2e-host',
  debug: process.env.SENTRY_DEBUG === '1',
  // Dedupe drops an event equal to the previous one; the test sends the same exception for two users on purpose.
  integrations: (defaults) => defaults.filter((integration) => integration.name !== 'Dedupe'),
  // Wraps the SDK's own transport to record what the server answered to each envelope.
  transport: (options) => {
    const inner = Sentry.makeNodeTransport(options);
    return {
      ...inner,
      send: async (envelope) => {
        const types = envelope[1].map((item) => item[0].type);
        try {
          const res = await inner.send(envelope);
          sends.push({ types, status: res?.statusCode ?? null });
          return res;
        } catch (err) {
          sends.push({ types, error: String(err) });
          throw err;
        }
      },
    };
  },
});

/** Throws from a named function so the event has a stack trace with this file's frames. */
function divide(a, b) {
  if (b === 0) throw new RangeError('division by zero');
  return a / b;
}

function checkout() {
  return divide(1, 0);
}

for (const id of users) {
  Sentry.withScope((scope) => {
    scope.setUser({ id, email: `user${id}@example.com` });
    scope.setTag('feature', 'checkout');
    try {
      checkout();
    } catch (err) {
      Sentry.captureException(err);
    }
  });
}
Sentry.withScope((scope) => {
  scope.setUser({ id: users[0], email: `user${users[0]}@example.com` });
  Sentry.captureMessage(`svc e2e message from ${pkg}`, 'warning');
});

const flushed = await Sentry.close(10_000);
for (const s of sends) console.log(`SEND ${JSON.stringify(s)}`);
if (!flushed) {
  console.error('Sentry.close timed out');
  process.exit(3);
}
