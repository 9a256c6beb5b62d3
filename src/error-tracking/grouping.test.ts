import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { errorTitle, formatMessage, normalizeEvent } from './events.js';
import { GROUPING_VERSION, parameterize } from './grouping.js';

/**
 * Grouping against a table of events that must land in one error or in two, taken from Sentry's documented
 * grouping ("Grouping by stack trace / exception / message", fingerprints with `{{ default }}`), the rules of
 * its newstyle strategy (in-app frames, module over file name, JavaScript function trimming, generated Java
 * names, recursion) and GlitchTip's grouping tests (same custom fingerprint across exceptions, message params).
 */

type Ev = Record<string, unknown>;
const now = new Date('2026-11-27T12:00:00Z');
const hashOf = (e: Ev) => normalizeEvent(e, { now, clientIp: null }).hashes.current;

const frame = (module: string, fn: string, lineno: number, in_app = true, extra: Ev = {}) => ({
  module,
  filename: `${module.replace(/\./g, '/')}.py`,
  function: fn,
  lineno,
  in_app,
  ...extra,
});
const python = (type: string, value: string, frames: Ev[], extra: Ev = {}): Ev => ({
  platform: 'python',
  exception: { values: [{ type, value, stacktrace: { frames } }] },
  ...extra,
});
const json = (caller: string) =>
  python('JSONDecodeError', 'Expecting value: line 1 column 1 (char 0)', [
    frame('worker.jobs', caller, 10),
    frame('json.decoder', 'raw_decode', 355, false),
  ]);
const js = (file: string, fns: string[], extra: Ev = {}): Ev => ({
  platform: 'javascript',
  exception: {
    values: [
      {
        type: 'TypeError',
        value: "Cannot read properties of undefined (reading 'id')",
        stacktrace: {
          frames: fns.map((f, i) => ({
            filename: `https://cdn.example.com/assets/${file}`,
            abs_path: `https://cdn.example.com/assets/${file}`,
            function: f,
            lineno: 1,
            colno: 1000 + i * 17,
            in_app: true,
          })),
        },
      },
    ],
  },
  ...extra,
});
const message = (template: string, params: unknown[], extra: Ev = {}): Ev => ({
  platform: 'python',
  logentry: { message: template, params },
  ...extra,
});
const noStack = (type: string, value: string): Ev => ({
  platform: 'node',
  exception: { values: [{ type, value }] },
});
const java = (module: string): Ev => ({
  platform: 'java',
  exception: {
    values: [
      {
        type: 'java.lang.IllegalStateException',
        value: 'closed',
        stacktrace: { frames: [frame(module, 'invoke', 1), frame('com.example.Api', 'get', 2)] },
      },
    ],
  },
});

const together: [string, Ev, Ev][] = [
  [
    'same in-app frames, other line numbers',
    python('KeyError', "'id'", [frame('app.views', 'show', 10), frame('app.models', 'load', 20)]),
    python('KeyError', "'id'", [frame('app.views', 'show', 14), frame('app.models', 'load', 31)]),
  ],
  [
    'one bug reached from two routes (same code, other transaction and culprit)',
    python('KeyError', "'id'", [frame('app.views', 'show', 10)], { transaction: '/users/<id>' }),
    python('KeyError', "'id'", [frame('app.views', 'show', 10)], { transaction: '/admin/users/<id>' }),
  ],
  [
    'library frames differ (an upgraded dependency), in-app frames the same',
    python('ValueError', 'bad', [frame('app.jobs', 'run', 5), frame('requests.api', 'get', 60, false)]),
    python('ValueError', 'bad', [
      frame('app.jobs', 'run', 5),
      frame('requests.sessions', 'request', 480, false),
      frame('urllib3.pool', 'urlopen', 700, false),
    ]),
  ],
  [
    'other exception values, same stack trace',
    python('KeyError', "'id'", [frame('app.views', 'show', 10)]),
    python('KeyError', "'name'", [frame('app.views', 'show', 10)]),
  ],
  [
    'no in-app frame: all frames, without line numbers',
    python('OSError', 'x', [frame('lib.a', 'f', 1, false), frame('lib.b', 'g', 2, false)]),
    python('OSError', 'x', [frame('lib.a', 'f', 9, false), frame('lib.b', 'g', 8, false)]),
  ],
  [
    'no stack trace: values that differ in numbers, ids, addresses and dates',
    noStack(
      'Error',
      'user 42 not found at 10.0.0.1 (req 5f0c8a1e-3b2d-4c1a-9e8f-1a2b3c4d5e6f, 2026-11-27T10:00:00Z)',
    ),
    noStack(
      'Error',
      'user 7 not found at 192.168.1.20 (req 0b9d6a1e-1111-4c1a-9e8f-aaaaaaaaaaaa, 2026-11-28T11:30:00Z)',
    ),
  ],
  [
    'no stack trace: hexadecimal addresses and floats',
    noStack('Error', 'segfault at 0x7ffde3a0 after 1.25s'),
    noStack('Error', 'segfault at 0x55aa10 after 3.5s'),
  ],
  [
    'message template with other params (GlitchTip: grouped by the template)',
    message('Order %s failed for %s', ['A-1', 'bob']),
    message('Order %s failed for %s', ['B-9', 'alice']),
  ],
  [
    'message without template: numbers parameterised',
    { platform: 'node', message: 'Payment 1234 declined' },
    { platform: 'node', message: 'Payment 98765 declined' },
  ],
  [
    'the same custom fingerprint on different exceptions (GlitchTip test_fingerprint)',
    { ...noStack('A', 'a'), fingerprint: ['database-unavailable'] },
    { ...noStack('B', 'b'), fingerprint: ['database-unavailable'] },
  ],
  [
    '{{ default }} with the same extra part',
    { ...python('KeyError', 'x', [frame('app.v', 'f', 1)]), fingerprint: ['{{ default }}', 'GET'] },
    { ...python('KeyError', 'y', [frame('app.v', 'f', 2)]), fingerprint: ['{{ default }}', 'GET'] },
  ],
  [
    'minified bundle rebuilt: content hash in the file name and renamed short functions',
    js('app.3f2a9c1b.js', ['a', 'handleClick', 'Zt']),
    js('app.9e8d7c6b.js', ['t', 'handleClick', 'e']),
  ],
  [
    'versioned file name (vendor-1.2.3 vs vendor-1.3.0)',
    js('vendor-1.2.3.min.js', ['render']),
    js('vendor-1.3.0.min.js', ['render']),
  ],
  [
    'JavaScript: Object.foo and foo are one function; anonymous functions do not count',
    js('main.js', ['Object.loadUser', '<anonymous>']),
    js('main.js', ['loadUser', '?']),
  ],
  [
    'recursion of different depth',
    python('RecursionError', 'x', [
      frame('app.t', 'walk', 1),
      frame('app.t', 'walk', 1),
      frame('app.t', 'walk', 1),
    ]),
    python('RecursionError', 'x', [frame('app.t', 'walk', 1)]),
  ],
  [
    'Java generated classes (CGLIB proxies, reflection accessors)',
    java('com.example.Service$$EnhancerBySpringCGLIB$$1a2b3c4d'),
    java('com.example.Service$$EnhancerBySpringCGLIB$$9f8e7d6c'),
  ],
  [
    'message events with a synthetic exception: grouped by the template',
    {
      platform: 'javascript',
      logentry: { message: 'Quota %d exceeded', params: [3] },
      exception: { values: [{ value: 'Quota 3 exceeded', mechanism: { type: 'generic', synthetic: true } }] },
    },
    {
      platform: 'javascript',
      logentry: { message: 'Quota %d exceeded', params: [9] },
      exception: { values: [{ value: 'Quota 9 exceeded', mechanism: { type: 'generic', synthetic: true } }] },
    },
  ],
];

const apart: [string, Ev, Ev][] = [
  [
    'two bugs in one route (same transaction, other in-app frames)',
    python('KeyError', "'id'", [frame('app.views', 'show', 10), frame('app.models', 'load', 20)], {
      transaction: '/users/<id>',
    }),
    python('KeyError', "'id'", [frame('app.views', 'show', 10), frame('app.perms', 'check', 20)], {
      transaction: '/users/<id>',
    }),
  ],
  ['JSONDecodeError in a library frame, from two callers', json('import_orders'), json('sync_users')],
  [
    'other exception type, same stack',
    python('KeyError', 'x', [frame('app.views', 'show', 10)]),
    python('IndexError', 'x', [frame('app.views', 'show', 10)]),
  ],
  [
    'same function name in another module',
    python('KeyError', 'x', [frame('app.views', 'show', 10)]),
    python('KeyError', 'x', [frame('app.admin', 'show', 10)]),
  ],
  [
    'no stack trace: other words in the value',
    noStack('Error', 'connection refused'),
    noStack('Error', 'connection reset'),
  ],
  ['other message templates', message('Order %s failed', ['A-1']), message('Order %s shipped', ['A-1'])],
  [
    'an exception and a message of the same text',
    noStack('Error', 'boom'),
    { platform: 'node', message: 'boom' },
  ],
  [
    '{{ default }} with other extra parts',
    { ...python('KeyError', 'x', [frame('app.v', 'f', 1)]), fingerprint: ['{{ default }}', 'GET'] },
    { ...python('KeyError', 'x', [frame('app.v', 'f', 1)]), fingerprint: ['{{ default }}', 'POST'] },
  ],
  [
    'other custom fingerprints on the same exception',
    { ...noStack('A', 'a'), fingerprint: ['db'] },
    { ...noStack('A', 'a'), fingerprint: ['cache'] },
  ],
  [
    'JavaScript: other real function names in the same file',
    js('app.3f2a9c1b.js', ['handleClick']),
    js('app.3f2a9c1b.js', ['handleSubmit']),
  ],
];

describe('grouping', () => {
  it.each(together)('together: %s', (_name, a, b) => expect(hashOf(a)).toBe(hashOf(b)));
  it.each(apart)('apart: %s', (_name, a, b) => expect(hashOf(a)).not.toBe(hashOf(b)));

  it('keeps computing the legacy hash exactly as errors stored before were keyed', () => {
    const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');
    const h = normalizeEvent(
      { ...python('KeyError', "'id'", [frame('app.views', 'show', 10)]), transaction: '/users' },
      { now, clientIp: null },
    ).hashes;
    expect(h.legacy).toBe(sha1('exception\u0000KeyError\u0000/users\u0000python'));
    expect(h.current).not.toBe(h.legacy);
    const m = normalizeEvent(message('Hi %s', ['x']), { now, clientIp: null }).hashes;
    expect(m.legacy).toBe(sha1('message\u0000Hi %s\u0000python'));
    const custom = normalizeEvent({ ...noStack('A', 'a'), fingerprint: ['x', 'y'] }, { now, clientIp: null });
    expect(custom.hashes).toEqual({ current: sha1('x\u0000y'), legacy: sha1('x\u0000y') });
    expect(GROUPING_VERSION).toMatch(/^stacktrace:/);
  });

  it.each([
    ['user 42 not found', 'user <int> not found'],
    ['took 1.5 s', 'took <float> s'],
    ['from 10.1.2.3 and ::1', 'from <ip> and ::<int>'],
    ['id 5f0c8a1e-3b2d-4c1a-9e8f-1a2b3c4d5e6f', 'id <uuid>'],
    ['at 2026-11-27T10:00:00.123Z', 'at <date>'],
    ['mail bob@example.com', 'mail <email>'],
    ['GET https://api.example.com/x?y=1 failed', 'GET <url> failed'],
    ['ptr 0xDEADBEEF', 'ptr <hex>'],
    ['commit 3f786850e387550fdab836ed7e6dc881de23001b', 'commit <sha1>'],
    ['key="abc" missing', 'key=<quoted> missing'],
    ['KeyError in handler', 'KeyError in handler'],
  ])('parameterises %j', (input, expected) => expect(parameterize(input)).toBe(expected));
});

describe('titles', () => {
  const title = (e: Ev) => {
    const n = normalizeEvent(e, { now, clientIp: null });
    return errorTitle(n.type, n.message);
  };

  it.each([
    ['This is a warning: %s', ['disk'], 'This is a warning: disk'],
    ['%d of %d done, 100%% sure', [3, 4], '3 of 4 done, 100% sure'],
    ['Took {} ms in {}', [12, 'db'], 'Took 12 ms in db'],
    ['User {0} failed {1} times', ['bob', 3], 'User bob failed 3 times'],
    ['Only %s', [], 'Only %s'],
  ])('fills %j with positional params', (template, params, expected) =>
    expect(formatMessage(template, params)).toBe(expected));

  it('fills {name} and %(name)s from a params object', () => {
    expect(formatMessage('User {UserId} logged in from {Ip}', { UserId: 7, Ip: '10.0.0.1' })).toBe(
      'User 7 logged in from 10.0.0.1',
    );
    expect(formatMessage('%(count)d items for %(who)s', { count: 2, who: 'ann' })).toBe('2 items for ann');
    expect(formatMessage('Keep {missing}', { other: 1 })).toBe('Keep {missing}');
  });

  it('titles a message with params but no formatted text by the filled template', () => {
    expect(title(message('This is a warning: %s', ['disk full']))).toBe(
      'Message This is a warning: disk full',
    );
    expect(
      title({ platform: 'python', logentry: { message: 'x %s', params: ['y'], formatted: 'given' } }),
    ).toBe('Message given');
  });

  it('keeps the type as the title of an exception with an empty value', () => {
    expect(title(noStack('ZeroDivisionError', ''))).toBe('ZeroDivisionError');
    expect(title({ platform: 'python', exception: { values: [{ type: 'StopIteration' }] } })).toBe(
      'StopIteration',
    );
    expect(
      title({
        platform: 'python',
        exception: {
          values: [
            { type: 'KeyError', value: "'a'", stacktrace: { frames: [frame('app.a', 'f', 1)] } },
            { type: 'CustomError', value: '', stacktrace: { frames: [frame('app.b', 'g', 1)] } },
          ],
        },
      }),
    ).toBe('CustomError');
  });
});
