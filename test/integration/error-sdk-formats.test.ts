import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * SDKs that cannot be installed here (spec table: Java 6.18.1 envelope, PHP 3.18.0 store, Rust 0.31.0 envelope
 * with sessions): payloads written from their documented formats and what those SDK versions send.
 */
const hex = () => randomUUID().replace(/-/g, '');

describe('payloads in the formats of the Java, PHP and Rust SDKs', () => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let n = 0;
  async function project() {
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: `sdk-format-${++n}` } });
    await api.put(`/api/v4/projects/${p.body.id}/error_tracking/settings`, {
      token: s.rootToken,
      body: { active: true, integrated: true },
    });
    const [key] = (
      await api.get(`/api/v4/projects/${p.body.id}/error_tracking/client_keys`, { token: s.rootToken })
    ).body;
    return {
      id: p.body.id as number,
      key: key.public_key as string,
      base: `${s.url}/api/v4/error_tracking/collector/api/${p.body.id}`,
    };
  }
  const errors = async (id: number) =>
    (
      await api.get(`/api/v4/projects/${id}/error_tracking/errors?per_page=100&sort=first_seen`, {
        token: s.rootToken,
      })
    ).body as any[];

  beforeAll(async () => {
    s = await startTestServer({ env: { SVC_OFFERING: 'hosted' } });
    api = http(s.url);
  });
  afterAll(() => s?.stop());

  it('sentry-java 6.18: envelope with length-prefixed items, module-qualified frames, user by id', async () => {
    const p = await project();
    const id = hex();
    const event = JSON.stringify({
      event_id: id,
      timestamp: '2026-11-21T10:00:00.123Z',
      platform: 'java',
      level: 'error',
      release: 'shop@2.0.0',
      environment: 'production',
      user: { id: '1001' },
      sdk: { name: 'sentry.java', version: '6.18.1' },
      exception: {
        values: [
          {
            type: 'IllegalStateException',
            value: 'cart is empty',
            module: 'java.lang',
            thread_id: 1,
            stacktrace: {
              frames: [
                {
                  filename: 'Thread.java',
                  module: 'java.lang.Thread',
                  function: 'run',
                  lineno: 833,
                  in_app: false,
                },
                {
                  filename: 'CheckoutService.java',
                  module: 'com.shop.CheckoutService',
                  function: 'checkout',
                  lineno: 42,
                  in_app: true,
                },
              ],
            },
            mechanism: { type: 'UncaughtExceptionHandler', handled: false },
          },
        ],
      },
    });
    const message = JSON.stringify({
      event_id: hex(),
      timestamp: '2026-11-21T10:00:01Z',
      platform: 'java',
      level: 'info',
      message: { formatted: 'order placed', message: 'order %s placed' },
    });
    const body = [
      JSON.stringify({ event_id: id, sdk: { name: 'sentry.java', version: '6.18.1' } }),
      JSON.stringify({ type: 'event', content_type: 'application/json', length: Buffer.byteLength(event) }),
      event,
      JSON.stringify({ type: 'event', length: Buffer.byteLength(message) }),
      message,
    ].join('\n');
    const r = await fetch(`${p.base}/envelope/`, {
      method: 'POST',
      body: gzipSync(body),
      headers: {
        'content-type': 'application/x-sentry-envelope',
        'content-encoding': 'gzip',
        'x-sentry-auth': `Sentry sentry_version=7,sentry_client=sentry.java/6.18.1,sentry_key=${p.key}`,
      },
    });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ id });
    const list = await errors(p.id);
    // Newest first seen first.
    expect(list.map((e) => [e.type, e.culprit, e.user_count])).toEqual([
      ['Message', '', 0],
      ['IllegalStateException', 'checkout(com.shop.CheckoutService)', 1],
    ]);
  });

  it('sentry-php 3.18: store endpoint with context lines and request data', async () => {
    const p = await project();
    const r = await fetch(`${p.base}/store/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-sentry-auth': `Sentry sentry_version=7, sentry_client=sentry.php/3.18.0, sentry_key=${p.key}`,
      },
      body: JSON.stringify({
        event_id: hex(),
        timestamp: 1795258112.2841,
        platform: 'php',
        sdk: { name: 'sentry.php', version: '3.18.0' },
        server_name: 'web-1',
        user: { email: 'jane@example.com', ip_address: '203.0.113.9' },
        request: { url: 'https://shop.example/cart', method: 'POST' },
        exception: {
          values: [
            {
              type: 'DivisionByZeroError',
              value: 'Division by zero',
              stacktrace: {
                frames: [
                  {
                    filename: '/index.php',
                    abs_path: '/var/www/index.php',
                    function: null,
                    lineno: 5,
                    pre_context: ['<?php'],
                    context_line: '$cart->total();',
                    post_context: [],
                  },
                  {
                    filename: '/src/Cart.php',
                    abs_path: '/var/www/src/Cart.php',
                    function: 'App\\Cart::total',
                    lineno: 17,
                    pre_context: ['public function total()', '{'],
                    context_line: '    return $this->sum / $this->count;',
                    post_context: ['}'],
                  },
                ],
              },
            },
          ],
        },
      }),
    });
    expect(r.status).toBe(200);
    const [e] = await errors(p.id);
    expect(e).toMatchObject({
      type: 'DivisionByZeroError',
      culprit: 'App\\Cart::total(/src/Cart.php)',
      user_count: 1,
    });
    const trace = await api.get(`/api/v4/projects/${p.id}/error_tracking/errors/${e.id}/stack_trace`, {
      token: s.rootToken,
    });
    expect(trace.body.stack_trace_entries[1].context).toEqual([
      [15, 'public function total()'],
      [16, '{'],
      [17, '    return $this->sum / $this->count;'],
      [18, '}'],
    ]);
  });

  it('sentry-rust 0.31: envelope with an event and session updates', async () => {
    const p = await project();
    const id = hex();
    const event = JSON.stringify({
      event_id: id,
      timestamp: 1795258112.123456,
      platform: 'native',
      level: 'fatal',
      release: 'cli@0.4.0',
      environment: 'production',
      user: { username: 'ops' },
      exception: {
        values: [
          {
            type: 'panic',
            value: 'called `Option::unwrap()` on a `None` value',
            stacktrace: {
              frames: [
                {
                  function: 'cli::main',
                  abs_path: '/build/src/main.rs',
                  lineno: 12,
                  instruction_addr: '0x55d1',
                },
              ],
            },
            mechanism: { type: 'panic', handled: false },
          },
        ],
      },
    });
    const sessionStart = JSON.stringify({
      sid: hex(),
      did: 'ops',
      init: true,
      started: '2026-11-21T10:00:00Z',
      status: 'ok',
      errors: 0,
      attrs: { release: 'cli@0.4.0', environment: 'production' },
    });
    const sessionEnd = JSON.stringify({
      sid: hex(),
      started: '2026-11-21T10:00:00Z',
      status: 'crashed',
      errors: 1,
      attrs: { release: 'cli@0.4.0', environment: 'production' },
    });
    const body = [
      JSON.stringify({ event_id: id }),
      JSON.stringify({ type: 'event', length: Buffer.byteLength(event) }),
      event,
      JSON.stringify({ type: 'session', length: Buffer.byteLength(sessionStart) }),
      sessionStart,
      JSON.stringify({ type: 'session', length: Buffer.byteLength(sessionEnd) }),
      sessionEnd,
      '',
    ].join('\n');
    const r = await fetch(
      `${p.base}/envelope/?sentry_key=${p.key}&sentry_version=7&sentry_client=sentry.rust/0.31.0`,
      { method: 'POST', body },
    );
    expect(r.status).toBe(200);
    const [e] = await errors(p.id);
    expect(e).toMatchObject({
      type: 'panic',
      culprit: 'cli::main(main.rs)',
      tags: { level: 'fatal' },
      user_count: 1,
    });
    const sessions = await api.get(`/api/v4/projects/${p.id}/error_tracking/sessions`, {
      token: s.rootToken,
    });
    expect(sessions.body).toEqual([
      { release: 'cli@0.4.0', environment: 'production', started: 1, errored: 0, crashed: 1 },
    ]);
  });
});
