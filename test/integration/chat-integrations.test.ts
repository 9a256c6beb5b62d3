import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegration, notify } from '../helpers/alerts.js';
import { databases } from '../helpers/databases.js';
import { allowLocalHooks, type ReceivedHook, startHookReceiver } from '../helpers/hook-receiver.js';
import { projectWithMembers } from '../helpers/members.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const ROLES = { guest: 10, reporter: 20, developer: 30, maintainer: 40 } as const;
const SLUGS = [
  'slack',
  'mattermost',
  'microsoft-teams',
  'discord',
  'telegram',
  'hangouts-chat',
  'webex-teams',
] as const;
const TELEGRAM_TOKEN = '123456:AAE-secret-bot-token';

const str = expect.any(String);

/**
 * The shape each service documents for its incoming webhook (Telegram: the Bot API's sendMessage), with what svc's
 * message must carry: the title, the link to the page and the facts (`expected` strings somewhere in the text).
 */
function checkShape(slug: (typeof SLUGS)[number], body: any, expected: string[], link: string) {
  const text = JSON.stringify(body);
  for (const e of expected) expect(text).toContain(e);
  expect(text).toContain(link);
  switch (slug) {
    case 'slack': {
      // Slack: `text` is the notification's fallback; Block Kit blocks of known types.
      expect(body).toMatchObject({ text: str, blocks: expect.any(Array) });
      for (const b of body.blocks)
        expect(['header', 'section', 'actions', 'context', 'divider']).toContain(b.type);
      const header = body.blocks.find((b: any) => b.type === 'header');
      expect(header.text).toMatchObject({ type: 'plain_text', text: str });
      expect(header.text.text.length).toBeLessThanOrEqual(150);
      const section = body.blocks.find((b: any) => b.type === 'section');
      expect(section.fields.length).toBeLessThanOrEqual(10);
      for (const f of section.fields) expect(f).toMatchObject({ type: 'mrkdwn', text: str });
      const button = body.blocks.find((b: any) => b.type === 'actions').elements[0];
      expect(button).toMatchObject({ type: 'button', text: { type: 'plain_text', text: str }, url: link });
      break;
    }
    case 'mattermost': {
      expect(body).toMatchObject({ text: str, attachments: [expect.any(Object)] });
      const a = body.attachments[0];
      expect(a).toMatchObject({ fallback: str, color: expect.stringMatching(/^#[0-9a-f]{6}$/), title: str });
      expect(a.title_link).toBe(link);
      for (const f of a.fields) expect(f).toEqual({ title: str, value: str, short: expect.any(Boolean) });
      break;
    }
    case 'microsoft-teams': {
      expect(body.type).toBe('message');
      const att = body.attachments[0];
      expect(att.contentType).toBe('application/vnd.microsoft.card.adaptive');
      expect(att.content).toMatchObject({ type: 'AdaptiveCard', version: str, body: expect.any(Array) });
      for (const el of att.content.body) expect(['TextBlock', 'FactSet']).toContain(el.type);
      const facts = att.content.body.find((el: any) => el.type === 'FactSet').facts;
      for (const f of facts) expect(f).toEqual({ title: str, value: str });
      expect(att.content.actions[0]).toMatchObject({ type: 'Action.OpenUrl', title: str, url: link });
      break;
    }
    case 'discord': {
      expect(body).toMatchObject({ content: str, embeds: [expect.any(Object)] });
      expect(body.content.length).toBeLessThanOrEqual(2000);
      const e = body.embeds[0];
      expect(e).toMatchObject({ title: str, url: link, color: expect.any(Number), timestamp: str });
      expect(Number.isInteger(e.color)).toBe(true);
      expect(e.fields.length).toBeLessThanOrEqual(25);
      for (const f of e.fields) expect(f).toEqual({ name: str, value: str, inline: expect.any(Boolean) });
      break;
    }
    case 'telegram': {
      expect(body).toMatchObject({ chat_id: '@svc_alerts', text: str, parse_mode: 'HTML' });
      expect(body.text.length).toBeLessThanOrEqual(4096);
      expect(body.text).toContain(`<a href="${link}">`);
      break;
    }
    case 'hangouts-chat': {
      expect(body).toMatchObject({ text: str, cardsV2: [{ cardId: str, card: expect.any(Object) }] });
      const card = body.cardsV2[0].card;
      expect(card.header).toMatchObject({ title: str });
      const widgets = card.sections[0].widgets;
      const button = widgets.find((w: any) => w.buttonList).buttonList.buttons[0];
      expect(button).toMatchObject({ text: str, onClick: { openLink: { url: link } } });
      for (const w of widgets.filter((x: any) => x.decoratedText))
        expect(w.decoratedText).toEqual({ topLabel: str, text: str });
      break;
    }
    case 'webex-teams': {
      expect(Object.keys(body)).toEqual(['markdown']);
      expect(body.markdown).toContain(`](${link})`);
      break;
    }
  }
}

describe.each(await databases())('chat integrations (%s)', (database) => {
  let s: TestServer;
  let receiver: Awaited<ReturnType<typeof startHookReceiver>>;
  let base: string;
  let n = 0;

  beforeAll(async () => {
    receiver = await startHookReceiver();
    base = receiver.url.replace(/\/hook$/, '');
    s = await startTestServer({
      database,
      env: { SVC_TIER: 'premium', SVC_OFFERING: 'hosted', SVC_TELEGRAM_API_URL: `${base}/tg` },
    });
    await allowLocalHooks(s);
  });
  afterAll(async () => {
    await s?.stop();
    await receiver?.close();
  });

  const drain = () => s.server.ctx.jobs.drain();

  async function project() {
    const i = ++n;
    const p = await projectWithMembers(s, `chat-${i}`, ROLES, `c${i}`);
    const url = (slug: string) => `/api/v4/projects/${p.id}/integrations/${slug}`;
    /** The webhook of `slug` in this project: the receiver, told apart by its query. */
    const hookOf = (slug: string) => `${receiver.url}?p=${p.id}&s=${slug}`;
    const got = (slug: string): ReceivedHook[] =>
      receiver.received.filter((r) =>
        slug === 'telegram'
          ? r.path === `/tg/bot${TELEGRAM_TOKEN}/sendMessage` &&
            r.body?.chat_id === `@svc_alerts` &&
            r.body.text.includes(`chat-${i}`)
          : r.path === `/hook?p=${p.id}&s=${slug}`,
      );
    const setUp = (slug: string, extra: Record<string, unknown> = {}) =>
      p.api.put(url(slug), {
        token: p.tokens.maintainer,
        body:
          slug === 'telegram'
            ? { token: TELEGRAM_TOKEN, room: '@svc_alerts', ...extra }
            : { webhook: hookOf(slug), ...extra },
      });
    return { ...p, url, hookOf, got, setUp, i };
  }

  it("sets each service up with GitLab's fields; lists, gets and deletes it; never returns the secret", async () => {
    const p = await project();
    expect(
      (await p.api.get(`/api/v4/projects/${p.id}/integrations`, { token: p.tokens.maintainer })).body,
    ).toEqual([]);
    expect((await p.api.get(p.url('slack'), { token: p.tokens.maintainer })).body).toEqual({
      message: '404 Integration Not Found',
    });
    for (const slug of SLUGS) {
      const extra = ['slack', 'mattermost'].includes(slug) ? { username: 'svc-bot', channel: '#ops' } : {};
      const r = await p.setUp(slug, { ...extra, page_events: false });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        slug,
        title: str,
        active: true,
        alert_events: true,
        incident_events: true,
        error_tracking_events: true,
        page_events: false,
        push_events: false,
        alert_status: 'executable',
      });
      const text = JSON.stringify(r.body);
      expect(text).not.toContain('webhook');
      expect(text).not.toContain(receiver.url);
      expect(text).not.toContain(TELEGRAM_TOKEN);
      expect(r.body).not.toHaveProperty('token');
      const g = await p.api.get(p.url(slug), { token: p.tokens.maintainer });
      expect(g.body).toEqual(r.body);
      if (slug === 'slack' || slug === 'mattermost')
        expect(g.body.properties).toEqual({
          username: 'svc-bot',
          channel: '#ops',
          notify_only_default_branch: false,
          branches_to_be_notified: 'default',
        });
      else if (slug === 'telegram')
        expect(g.body.properties).toEqual({
          room: '@svc_alerts',
          thread: null,
          notify_only_default_branch: false,
          branches_to_be_notified: 'default',
        });
      else
        expect(g.body.properties).toEqual({
          notify_only_default_branch: false,
          branches_to_be_notified: 'default',
        });
    }
    const list = await p.api.get(`/api/v4/projects/${p.id}/integrations`, { token: p.tokens.maintainer });
    expect(list.body.map((i: { slug: string }) => i.slug).sort()).toEqual([...SLUGS].sort());
    expect(JSON.stringify(list.body)).not.toContain(receiver.url);
    // A change without the secret keeps it; only what it names changes.
    const c = await p.api.put(p.url('slack'), {
      token: p.tokens.maintainer,
      body: { channel: '#alerts', alert_events: false },
    });
    expect(c.body).toMatchObject({ alert_events: false, error_tracking_events: true, page_events: false });
    expect(c.body.properties).toMatchObject({ username: 'svc-bot', channel: '#alerts' });
    // An inactive integration is not listed (GitLab lists the active ones) but still read.
    await p.api.put(p.url('discord'), { token: p.tokens.maintainer, body: { active: false } });
    const after = await p.api.get(`/api/v4/projects/${p.id}/integrations`, { token: p.tokens.maintainer });
    expect(after.body.map((i: { slug: string }) => i.slug)).not.toContain('discord');
    expect((await p.api.get(p.url('discord'), { token: p.tokens.maintainer })).body.active).toBe(false);
    // GitLab's DELETE disables the integration and clears its settings; it is still read, inactive.
    expect((await p.api.delete(p.url('slack'), { token: p.tokens.maintainer })).status).toBe(204);
    const cleared = await p.api.get(p.url('slack'), { token: p.tokens.maintainer });
    expect(cleared.body).toMatchObject({
      active: false,
      alert_events: true,
      properties: { username: null, channel: null, branches_to_be_notified: 'default' },
    });
    expect((await p.api.delete(p.url('slack'), { token: p.tokens.maintainer })).status).toBe(204);
    // The webhook went with it: setting it up again needs one.
    expect((await p.api.put(p.url('slack'), { token: p.tokens.maintainer, body: {} })).body.error).toBe(
      'webhook is missing',
    );
    expect((await p.api.post(`${p.url('slack')}/test`, { token: p.tokens.maintainer })).status).toBe(422);
    expect((await p.setUp('slack')).body).toMatchObject({ active: true, properties: { username: null } });
    // GitLab's older `/services` paths answer alike in v4 (and not in v5).
    expect(
      (await p.api.get(`/api/v4/projects/${p.id}/services/webex-teams`, { token: p.tokens.maintainer })).body,
    ).toEqual((await p.api.get(p.url('webex-teams'), { token: p.tokens.maintainer })).body);
    expect(
      (await p.api.get(`/api/v5/projects/${p.id}/services/webex-teams`, { token: p.tokens.maintainer }))
        .status,
    ).toBe(404);
    // v5 answers alike.
    expect(
      (await p.api.get(`/api/v5/projects/${p.id}/integrations/slack`, { token: p.tokens.maintainer })).body,
    ).toEqual((await p.api.get(p.url('slack'), { token: p.tokens.maintainer })).body);
  });

  it('bad input is a 4xx that changes nothing', async () => {
    const p = await project();
    const t = { token: p.tokens.maintainer };
    const put = (slug: string, body: Record<string, unknown>) => p.api.put(p.url(slug), { ...t, body });
    expect((await put('slack', {})).status).toBe(400);
    expect((await put('slack', {})).body.error).toBe('webhook is missing');
    expect((await put('telegram', { token: TELEGRAM_TOKEN })).body.error).toBe('room is missing');
    expect((await put('telegram', { room: '@x' })).body.error).toBe('token is missing');
    expect((await put('unknown-chat', { webhook: p.hookOf('x') })).status).toBe(404);
    expect((await put('slack', { webhook: 'ftp://example.com/x' })).status).toBe(422);
    expect((await put('discord', { webhook: p.hookOf('discord'), username: 'x' })).status).toBe(400);
    expect((await put('slack', { webhook: p.hookOf('slack'), branches_to_be_notified: 'some' })).status).toBe(
      400,
    );
    expect((await put('slack', { webhook: p.hookOf('slack'), channel: 'x'.repeat(256) })).status).toBe(400);
    expect((await put('telegram', { token: 'not a token!', room: '@x' })).status).toBe(422);
    expect((await put('slack', { webhook: p.hookOf('slack'), alert_events: 'maybe' })).status).toBe(400);
    expect((await p.api.get(`/api/v4/projects/${p.id}/integrations`, t)).body).toEqual([]);
    // Local addresses are refused unless the admin allows them (the SSRF guard, as hooks).
    await p.api.put('/api/v4/application/settings', {
      token: s.rootToken,
      body: { allow_local_requests_from_web_hooks_and_services: false },
    });
    try {
      const r = await put('slack', { webhook: p.hookOf('slack') });
      expect(r.status).toBe(422);
      expect(JSON.stringify(r.body)).toContain('is blocked');
    } finally {
      await allowLocalHooks(s);
    }
    expect((await p.api.get(p.url('slack'), t)).status).toBe(404);
  });

  it('Maintainers manage integrations; Developers and below get 403, strangers 404', async () => {
    const p = await project();
    expect((await p.setUp('slack')).status).toBe(200);
    for (const role of ['guest', 'reporter', 'developer'] as const) {
      const t = { token: p.tokens[role] };
      expect((await p.api.get(`/api/v4/projects/${p.id}/integrations`, t)).status).toBe(403);
      expect((await p.api.get(p.url('slack'), t)).status).toBe(403);
      expect((await p.api.put(p.url('slack'), { ...t, body: { channel: '#x' } })).status).toBe(403);
      expect((await p.api.delete(p.url('slack'), t)).status).toBe(403);
      expect((await p.api.post(`${p.url('slack')}/test`, t)).status).toBe(403);
      expect((await p.api.get(`${p.url('slack')}/deliveries`, t)).status).toBe(403);
    }
    const stranger = await projectWithMembers(s, `chat-other-${p.i}`, { maintainer: 40 }, `o${p.i}`);
    const t = { token: stranger.tokens.maintainer };
    expect((await p.api.get(p.url('slack'), t)).status).toBe(404);
    expect((await p.api.put(p.url('slack'), { ...t, body: { channel: '#x' } })).status).toBe(404);
    expect((await p.api.get(p.url('slack'))).status).toBe(404);
    expect(
      (await p.api.get(p.url('slack'), { token: p.tokens.maintainer })).body.properties.channel,
    ).toBeNull();
  });

  it('an alert, its recovery and a new error reach every service in its documented shape', async () => {
    const p = await project();
    for (const slug of SLUGS) expect((await p.setUp(slug)).status).toBe(200);
    const settings = await p.api.put(`/api/v4/projects/${p.id}/error_tracking/settings`, {
      token: s.rootToken,
      body: { active: true, integrated: true },
    });
    expect(settings.status).toBe(200);
    const integration = await createIntegration(p.api, p.tokens.maintainer!, p.id, {
      type: 'http',
      name: 'generic',
      active: true,
    });
    const title = `Disk <full> & ${randomUUID().slice(0, 6)}`;
    expect(
      (await notify(integration.url, integration.authorization_key, { title, severity: 'high' })).status,
    ).toBe(200);
    await drain();
    const alerts = await p.api.get(`/api/v4/projects/${p.id}/alert_management/alerts`, {
      token: p.tokens.maintainer,
    });
    const iid = alerts.body[0].iid;
    const alertLink = `${s.url}/-/ui/projects/${p.id}/alerts/${iid}`;
    for (const slug of SLUGS) {
      const got = p.got(slug);
      expect(got).toHaveLength(1);
      expect(got[0]!.headers['content-type']).toContain('application/json');
      checkShape(slug, got[0]!.body, ['Alert triggered', 'high', 'triggered', p.path], alertLink);
    }
    // Special characters are escaped as each service documents.
    expect(p.got('slack')[0]!.body.text).toContain('&lt;full&gt; &amp;');
    expect(p.got('telegram')[0]!.body.text).toContain('&lt;full&gt; &amp;');
    // The recovery.
    await notify(integration.url, integration.authorization_key, {
      title,
      severity: 'high',
      end_time: new Date(s.clock.now().getTime() + 1000).toISOString(),
    });
    await drain();
    for (const slug of SLUGS) {
      const got = p.got(slug);
      expect(got).toHaveLength(2);
      checkShape(slug, got[1]!.body, ['Alert resolved', 'resolved'], alertLink);
    }
    // A new error.
    const key = (
      await p.api.get(`/api/v4/projects/${p.id}/error_tracking/client_keys`, { token: s.rootToken })
    ).body[0].public_key as string;
    const r = await fetch(`${s.url}/api/v4/error_tracking/collector/api/${p.id}/store/?sentry_key=${key}`, {
      method: 'POST',
      body: JSON.stringify({
        event_id: randomUUID().replace(/-/g, ''),
        timestamp: s.clock.now().getTime() / 1000,
        platform: 'node',
        exception: { values: [{ type: 'TypeError', value: 'x is undefined' }] },
      }),
    });
    expect(r.status).toBe(200);
    await drain();
    const errors = await p.api.get(`/api/v4/projects/${p.id}/error_tracking/errors`, {
      token: p.tokens.maintainer,
    });
    const errorLink = `${s.url}/-/ui/projects/${p.id}/errors/${errors.body[0].id}`;
    for (const slug of SLUGS) {
      const got = p.got(slug);
      expect(got).toHaveLength(3);
      checkShape(slug, got[2]!.body, ['New error', 'TypeError', 'unresolved'], errorLink);
    }
    // The delivery log shows each message as sent.
    const log = await p.api.get(`${p.url('discord')}/deliveries`, { token: p.tokens.maintainer });
    expect(log.body.map((d: any) => [d.event, d.action, d.status, d.response_status])).toEqual([
      ['error', 'new', 'success', 200],
      ['alert', 'resolved', 'success', 200],
      ['alert', 'new', 'success', 200],
    ]);
    expect(log.body[0].request_data).toEqual(p.got('discord')[2]!.body);
    // Flags off: nothing more is sent to that service.
    await p.api.put(p.url('slack'), { token: p.tokens.maintainer, body: { alert_events: false } });
    await notify(integration.url, integration.authorization_key, { title: 'Another alert' });
    await drain();
    expect(p.got('slack')).toHaveLength(3);
    expect(p.got('mattermost')).toHaveLength(4);
  });

  it('incidents opened and closed by hand and by alert intake reach the channels with incident events', async () => {
    const p = await project();
    expect((await p.setUp('microsoft-teams', { alert_events: false })).status).toBe(200);
    expect((await p.setUp('telegram', { incident_events: false })).status).toBe(200);
    const t = { token: p.tokens.developer };
    const opened = await p.api.post(`/api/v4/projects/${p.id}/issues`, {
      ...t,
      body: { title: 'Checkout is down', issue_type: 'incident', severity: 'high' },
    });
    expect(opened.status).toBe(201);
    // A plain issue tells nothing.
    await p.api.post(`/api/v4/projects/${p.id}/issues`, { ...t, body: { title: 'Just an issue' } });
    await drain();
    const link = `${s.url}/-/ui/projects/${p.id}/issues/${opened.body.iid}`;
    expect(p.got('microsoft-teams')).toHaveLength(1);
    checkShape(
      'microsoft-teams',
      p.got('microsoft-teams')[0]!.body,
      ['Incident opened', 'Checkout is down', 'high', p.path],
      link,
    );
    await p.api.put(`/api/v4/projects/${p.id}/issues/${opened.body.iid}`, {
      ...t,
      body: { state_event: 'close' },
    });
    await drain();
    expect(p.got('microsoft-teams')).toHaveLength(2);
    checkShape('microsoft-teams', p.got('microsoft-teams')[1]!.body, ['Incident closed', 'resolved'], link);
    // Alert intake opens an incident (create_incident) and closes it with the alert (auto_close_incident).
    await p.api.put(`/api/v4/projects/${p.id}/alert_management/settings`, {
      token: p.tokens.maintainer,
      body: { create_incident: true, auto_close_incident: true },
    });
    const integration = await createIntegration(p.api, p.tokens.maintainer!, p.id, {
      type: 'http',
      name: 'generic',
      active: true,
    });
    const payload = { title: 'Queue backlog', severity: 'critical', fingerprint: `fp-${p.i}` };
    await notify(integration.url, integration.authorization_key, payload);
    await drain();
    const teams = p.got('microsoft-teams');
    expect(teams).toHaveLength(3);
    expect(JSON.stringify(teams[2]!.body)).toContain('Incident opened');
    expect(JSON.stringify(teams[2]!.body)).toContain('Queue backlog');
    await notify(integration.url, integration.authorization_key, {
      ...payload,
      end_time: s.clock.now().toISOString(),
    });
    await drain();
    expect(p.got('microsoft-teams')).toHaveLength(4);
    expect(JSON.stringify(p.got('microsoft-teams')[3]!.body)).toContain('Incident closed');
    // Telegram has incident events off: it heard only the alert and its recovery.
    expect(p.got('telegram').map((r) => r.body.text.split(':')[0])).toEqual([
      '<b>Alert triggered</b>',
      '<b>Alert resolved</b>',
    ]);
  });

  it('an escalation page tells the channels who is paged; a rule can page one channel', async () => {
    const p = await project();
    for (const slug of ['slack', 'webex-teams'] as const)
      expect((await p.setUp(slug, { alert_events: false })).status).toBe(200);
    expect((await p.setUp('discord', { alert_events: false, page_events: false })).status).toBe(200);
    const policy = await p.api.post(`/api/v4/projects/${p.id}/incident_management/escalation_policies`, {
      token: p.tokens.maintainer,
      body: {
        name: 'Ops',
        rules: [
          { elapsed_time_seconds: 0, status: 'acknowledged', username: `developer-c${p.i}` },
          { elapsed_time_seconds: 0, status: 'resolved', integration_slug: 'discord' },
        ],
      },
    });
    expect(policy.status).toBe(201);
    expect(policy.body.rules.map((r: any) => r.integration_slug ?? null).sort()).toEqual(['discord', null]);
    const integration = await createIntegration(p.api, p.tokens.maintainer!, p.id, {
      type: 'http',
      name: 'generic',
      active: true,
    });
    await notify(integration.url, integration.authorization_key, {
      title: 'Pager test',
      severity: 'critical',
    });
    await drain();
    const alerts = await p.api.get(`/api/v4/projects/${p.id}/alert_management/alerts`, {
      token: p.tokens.maintainer,
    });
    const link = `${s.url}/-/ui/projects/${p.id}/alerts/${alerts.body[0].iid}`;
    for (const slug of ['slack', 'webex-teams'] as const) {
      const pages = p.got(slug).filter((r) => JSON.stringify(r.body).includes('Paged'));
      expect(pages.length).toBeGreaterThanOrEqual(1);
      checkShape(slug, pages[0]!.body, ['Paged', `@developer-c${p.i}`, 'Ops', 'critical'], link);
    }
    // The rule that pages Discord sends it a page though its page events are off; the others' pages do not.
    const discord = p.got('discord');
    expect(discord).toHaveLength(1);
    checkShape('discord', discord[0]!.body, ['Paged', 'Ops'], link);
    // A rule naming an integration the project has not set up is refused, and changes nothing.
    const bad = await p.api.put(
      `/api/v4/projects/${p.id}/incident_management/escalation_policies/${policy.body.id}`,
      {
        token: p.tokens.maintainer,
        body: { rules: [{ elapsed_time_seconds: 0, status: 'resolved', integration_slug: 'telegram' }] },
      },
    );
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('must have a chat integration set up in the project');
    // A disabled (deleted) integration pages nobody, and no new rule may name it.
    expect((await p.api.delete(p.url('discord'), { token: p.tokens.maintainer })).status).toBe(204);
    const again = await p.api.put(
      `/api/v4/projects/${p.id}/incident_management/escalation_policies/${policy.body.id}`,
      {
        token: p.tokens.maintainer,
        body: { rules: [{ elapsed_time_seconds: 0, status: 'resolved', integration_slug: 'discord' }] },
      },
    );
    expect(again.status).toBe(400);
  });

  it('the test action sends a sample; failures are retried, then the integration rests and is disabled', async () => {
    const p = await project();
    expect((await p.setUp('mattermost')).status).toBe(200);
    const test = await p.api.post(`${p.url('mattermost')}/test`, { token: p.tokens.maintainer });
    expect(test.status).toBe(201);
    checkShape(
      'mattermost',
      p.got('mattermost')[0]!.body,
      ['Test message from svc', p.path],
      `${s.url}/-/ui/projects/${p.id}/alerts`,
    );
    expect((await p.api.post(`${p.url('slack')}/test`, { token: p.tokens.maintainer })).status).toBe(404);
    receiver.status = 500;
    try {
      const failed = await p.api.post(`${p.url('mattermost')}/test`, { token: p.tokens.maintainer });
      expect(failed.status).toBe(422);
      expect(failed.body.message).toBe('Test failed: the service answered 500');
      const integration = await createIntegration(p.api, p.tokens.maintainer!, p.id, {
        type: 'http',
        name: 'generic',
        active: true,
      });
      await notify(integration.url, integration.authorization_key, { title: 'Failing' });
      await drain();
      const before = p.got('mattermost').length;
      // The queue retries with its backoff (2 s, 4 s, 8 s): the delivery uses its attempts.
      for (const ms of [2_500, 4_500, 8_500]) {
        s.clock.advance(ms);
        await drain();
      }
      expect(p.got('mattermost').length - before).toBe(3);
      const log = await p.api.get(`${p.url('mattermost')}/deliveries`, { token: p.tokens.maintainer });
      expect(log.body[0]).toMatchObject({
        event: 'alert',
        status: 'failed',
        attempts: 4,
        response_status: 500,
      });
      expect(log.body[0].error).toBe('the service answered 500');
      const resting = await p.api.get(p.url('mattermost'), { token: p.tokens.maintainer });
      expect(resting.body).toMatchObject({ alert_status: 'temporarily_disabled', disabled_reason: null });
      // While it rests, new events are not sent.
      await notify(integration.url, integration.authorization_key, { title: 'Failing again' });
      await drain();
      expect(p.got('mattermost').length - before).toBe(3);
    } finally {
      receiver.status = 200;
    }
    // Failing too often in a row disables it for good, until edited or tested.
    await s.server.ctx.db.kysely
      .updateTable('chat_integrations')
      .set({ failures: 39, disabled_until: null })
      .where('project_id', '=', p.id)
      .execute();
    receiver.status = 500;
    try {
      const integration = await createIntegration(p.api, p.tokens.maintainer!, p.id, {
        type: 'http',
        name: 'generic2',
        active: true,
      });
      await notify(integration.url, integration.authorization_key, { title: 'Last straw' });
      await drain();
    } finally {
      receiver.status = 200;
    }
    const disabled = await p.api.get(p.url('mattermost'), { token: p.tokens.maintainer });
    expect(disabled.body).toMatchObject({ alert_status: 'disabled' });
    expect(disabled.body.disabled_reason).toContain('disabled after 40 failed deliveries in a row');
    // A successful test enables it again.
    expect((await p.api.post(`${p.url('mattermost')}/test`, { token: p.tokens.maintainer })).status).toBe(
      201,
    );
    expect((await p.api.get(p.url('mattermost'), { token: p.tokens.maintainer })).body).toMatchObject({
      alert_status: 'executable',
      disabled_reason: null,
    });
  });
});
