import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegration, notify } from '../helpers/alerts.js';
import { databases } from '../helpers/databases.js';
import { allowLocalHooks } from '../helpers/hook-receiver.js';
import { projectWithMembers } from '../helpers/members.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startSmtpReceiver } from '../helpers/smtp.js';
import { until } from '../helpers/until.js';

/** A receiver that accepts every request and never answers (until closed). */
async function startSilentReceiver() {
  const waiting: ServerResponse<IncomingMessage>[] = [];
  const server = createServer((req, res) => {
    req.resume();
    waiting.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    waiting,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe.each(await databases())('job lanes (%s)', (database) => {
  let s: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let silent: Awaited<ReturnType<typeof startSilentReceiver>>;

  beforeAll(async () => {
    [smtp, silent] = await Promise.all([startSmtpReceiver(), startSilentReceiver()]);
    s = await startTestServer({
      database,
      env: {
        SVC_TIER: 'premium',
        SVC_SMTP_URL: smtp.url,
        // Two workers a lane, and deliveries that stay in flight for the whole test.
        SVC_JOB_CONCURRENCY: '2',
        SVC_OUTBOUND_TIMEOUT_MS: '120000',
      },
    });
    await allowLocalHooks(s);
  });
  afterAll(async () => {
    // The silent receiver first: the deliveries in flight then fail and the workers can stop.
    await silent?.close();
    await s?.stop();
    await smtp?.close();
  });

  it("webhook deliveries to a receiver that never answers do not hold another project's escalation page", async () => {
    const noisy = await projectWithMembers(s, 'lanes-noisy', { maintainer: 40 }, 'noisy');
    for (let i = 0; i < 6; i++) {
      const hook = await noisy.api.post(`/api/v4/projects/${noisy.id}/hooks`, {
        token: noisy.tokens.maintainer!,
        body: { url: `${silent.url}/${i}`, alert_events: true },
      });
      expect(hook.status).toBe(201);
    }
    const noisyIntegration = await createIntegration(noisy.api, s.rootToken, noisy.id, {
      name: 'http',
      type: 'http',
    });
    expect(
      (await notify(noisyIntegration.url, noisyIntegration.authorization_key, { title: 'n' })).status,
    ).toBe(200);
    // Every worker that takes deliveries is now waiting on the receiver.
    await until(() => silent.waiting.length >= 2, 'deliveries in flight');

    const quiet = await projectWithMembers(s, 'lanes-quiet', { maintainer: 40, reporter: 20 }, 'quiet');
    const policy = await quiet.api.post(
      `/api/v4/projects/${quiet.id}/incident_management/escalation_policies`,
      {
        token: quiet.tokens.maintainer!,
        body: {
          name: 'Now',
          rules: [{ elapsed_time_seconds: 0, status: 'acknowledged', username: 'reporter-quiet' }],
        },
      },
    );
    expect(policy.status).toBe(201);
    const integration = await createIntegration(quiet.api, s.rootToken, quiet.id, {
      name: 'http',
      type: 'http',
    });
    expect((await notify(integration.url, integration.authorization_key, { title: 'urgent' })).status).toBe(
      200,
    );
    // The page goes out while the deliveries still hang (the receiver answered none: they cannot have finished).
    await until(
      () =>
        smtp.messages.some(
          (m) => m.to.includes('reporter-quiet@example.com') && m.subject.includes('Paged:'),
        ),
      'the escalation page',
    );
    expect(silent.waiting.every((res) => !res.writableEnded)).toBe(true);
    const pending = await s.server.ctx.jobs.pending();
    expect(pending.filter((j) => j.kind === 'notify_hook_delivery').length).toBeGreaterThanOrEqual(4);
  });
});
