// Sends, with a real @sentry/node, one bug reached from two routes and a second bug in one of them.
// Usage: node node-grouping.mjs <dsn>
// Prints one `SEND {"types":[...],"status":N}` line per envelope the SDK delivered.
import * as Sentry from '@sentry/node';

const [dsn] = process.argv.slice(2);
const sends = [];
Sentry.init({
  dsn,
  release: 'svc-grouping@1',
  // Dedupe drops an event equal to the previous one; the same bug is sent twice on purpose.
  integrations: (defaults) => defaults.filter((integration) => integration.name !== 'Dedupe'),
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

function loadUser(data) {
  return data.user.id;
}

function loadName(data) {
  return data.profile.name;
}

function handle(route, bug) {
  Sentry.withScope((scope) => {
    scope.setTransactionName(route);
    try {
      bug({});
    } catch (err) {
      Sentry.captureException(err);
    }
  });
}

handle('GET /users/:id', loadUser);
handle('GET /admin/users/:id', loadUser);
handle('GET /users/:id', loadName);
const flushed = await Sentry.close(10_000);
for (const s of sends) console.log(`SEND ${JSON.stringify(s)}`);
if (!flushed) process.exit(3);
