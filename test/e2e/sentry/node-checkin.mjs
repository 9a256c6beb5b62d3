// Sends cron check-ins with a real @sentry/node (Sentry.withMonitor, Sentry.captureCheckIn), in its own process so
// the SDK's global state never touches the test process.
// Usage: node node-checkin.mjs <dsn> <slug> <ok | error | start> [monitor config JSON]
//   ok: withMonitor around a job that succeeds (in_progress, then ok with the same check_in_id);
//   error: withMonitor around a job that throws (in_progress, then error);
//   start: captureCheckIn in_progress only (a run that never finishes).
// Prints one `SEND {"types":[...],"status":N}` line per envelope the SDK delivered, and `CHECKIN <id>` for start.
import * as Sentry from '@sentry/node';

const [dsn, slug, scenario, configJson] = process.argv.slice(2);
if (!dsn || !slug || !scenario) {
  console.error('usage: node node-checkin.mjs <dsn> <slug> <ok|error|start> [config]');
  process.exit(2);
}
const config = configJson ? JSON.parse(configJson) : undefined;
const sends = [];

Sentry.init({
  dsn,
  release: 'svc-e2e@1.2.3',
  environment: 'e2e',
  defaultIntegrations: false,
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

if (scenario === 'ok') {
  await Sentry.withMonitor(slug, async () => new Promise((r) => setTimeout(r, 20)), config);
} else if (scenario === 'error') {
  try {
    await Sentry.withMonitor(
      slug,
      async () => {
        throw new Error('backup failed');
      },
      config,
    );
  } catch {
    // The SDK has sent the error check-in; the job's failure is expected here.
  }
} else if (scenario === 'start') {
  const id = Sentry.captureCheckIn({ monitorSlug: slug, status: 'in_progress' }, config);
  console.log(`CHECKIN ${id}`);
} else {
  console.error(`unknown scenario ${scenario}`);
  process.exit(2);
}
await Sentry.close(5000);
for (const s of sends) console.log(`SEND ${JSON.stringify(s)}`);
