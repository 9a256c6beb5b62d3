// Imports a module with a real @sentry/node set up, and reports what it throws: the event's frame is the module's
// file on disk, as a deployed app's would be. In its own process so the SDK's global state never touches the tests.
// Usage: node node-suspect.mjs <dsn> <release> <path of the module to import>
// Prints one `SEND {"types":[...],"status":N}` line per envelope the SDK delivered.
import { pathToFileURL } from 'node:url';

const [dsn, release, target] = process.argv.slice(2);
if (!dsn || !release || !target) {
  console.error('usage: node node-suspect.mjs <dsn> <release> <module path>');
  process.exit(2);
}
const mod = await import('@sentry/node');
const Sentry = typeof mod.init === 'function' ? mod : mod.default;
const sends = [];
Sentry.init({
  dsn,
  release,
  environment: 'e2e',
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
try {
  await import(pathToFileURL(target).href);
} catch (err) {
  Sentry.captureException(err);
}
await Sentry.flush(10_000);
for (const s of sends) console.log(`SEND ${JSON.stringify(s)}`);
