import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  classifyAddress,
  isLocalAddress,
  LOCAL_REFUSAL,
  OutboundError,
  OutboundHttp,
  type ResolvedAddress,
} from './outbound.js';

/** The host as WHATWG URL parsing normalises it (what the outbound client sees), without IPv6 brackets. */
const hostOf = (spelling: string) => new URL(`http://${spelling}/`).hostname.replace(/^\[|\]$/g, '');

describe('classifyAddress', () => {
  it.each([
    // IPv4 spellings that WHATWG URL normalises to loopback and private addresses
    ['127.0.0.1', 'loopback'],
    ['2130706433', 'loopback'], // decimal
    ['0x7f000001', 'loopback'], // hex
    ['0177.0.0.1', 'loopback'], // octal
    ['0x7f.1', 'loopback'], // short form
    ['127.1', 'loopback'],
    ['0', 'unspecified'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['012.0.0.1', 'private'], // octal 10
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['0xc0.0xa8.1.1', 'private'],
    ['100.64.0.1', 'shared'],
    ['100.127.255.255', 'shared'],
    ['169.254.169.254', 'link-local'],
    ['2852039166', 'link-local'], // 169.254.169.254 in decimal
    ['0xa9fea9fe', 'link-local'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['198.18.0.1', 'reserved'],
    // IPv6 and IPv4 inside IPv6
    ['[::1]', 'loopback'],
    ['[0:0:0:0:0:0:0:1]', 'loopback'],
    ['[::]', 'unspecified'],
    ['[::ffff:127.0.0.1]', 'loopback'],
    ['[::ffff:7f00:1]', 'loopback'],
    ['[::FFFF:7F00:0001]', 'loopback'],
    ['[0:0:0:0:0:ffff:a9fe:a9fe]', 'link-local'],
    ['[::ffff:169.254.169.254]', 'link-local'],
    ['[::ffff:10.1.2.3]', 'private'],
    ['[::ffff:192.168.0.1]', 'private'],
    ['[::ffff:100.64.0.1]', 'shared'],
    ['[::ffff:0.0.0.0]', 'unspecified'],
    ['[::127.0.0.1]', 'loopback'], // IPv4-compatible
    ['[::7f00:1]', 'loopback'],
    ['[::a9fe:a9fe]', 'link-local'],
    ['[::ffff:0:127.0.0.1]', 'loopback'], // IPv4-translated
    ['[64:ff9b::127.0.0.1]', 'loopback'], // NAT64
    ['[64:ff9b::a9fe:a9fe]', 'link-local'],
    ['[64:ff9b:1::1]', 'private'],
    ['[2002:7f00:1::]', 'loopback'], // 6to4 of 127.0.0.1
    ['[2002:c0a8:101::1]', 'private'],
    ['[fc00::1]', 'private'],
    ['[fd12:3456::1]', 'private'],
    ['[fe80::1]', 'link-local'],
    ['[febf::1]', 'link-local'],
    ['[fec0::1]', 'private'],
    ['[ff02::1]', 'multicast'],
    ['[ff0e::1]', 'multicast'],
    ['[2001:db8::1]', 'documentation'],
    ['[2001::1]', 'reserved'], // Teredo
    ['[100::1]', 'reserved'], // discard
    ['[3fff::1]', 'documentation'],
    ['[4000::1]', 'reserved'], // outside 2000::/3
  ])('%s is %s', (spelling, kind) => {
    expect(classifyAddress(hostOf(spelling))).toBe(kind);
    expect(isLocalAddress(hostOf(spelling))).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '169.253.1.1',
    '192.169.0.1',
    '223.255.255.254',
    '[2606:4700:4700::1111]',
    '[2a00:1450:4001:80b::200e]',
    '[::ffff:8.8.8.8]',
    '[64:ff9b::8.8.8.8]',
    '[2002:808:808::1]',
    '[2001:4860:4860::8888]',
  ])('%s is public', (spelling) => {
    expect(classifyAddress(hostOf(spelling))).toBeNull();
  });

  it('takes the resolver spellings too: zones, brackets, upper case, and refuses what is not an address', () => {
    expect(classifyAddress('fe80::1%eth0')).toBe('link-local');
    expect(classifyAddress('[FE80::1]')).toBe('link-local');
    expect(classifyAddress('::FFFF:127.0.0.1')).toBe('loopback');
    expect(classifyAddress('localhost')).toBe('invalid');
    expect(classifyAddress('')).toBe('invalid');
    expect(classifyAddress('1.2.3')).toBe('invalid');
    expect(classifyAddress('::ffff:1.2.3.4.5')).toBe('invalid');
  });
});

/** A loopback listener that records requests; `host` picks the loopback address it binds. */
async function listener(host: string, port = 0) {
  const seen: { host: string | undefined; path: string; auth: string | undefined }[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    seen.push({ host: req.headers.host, path: req.url ?? '', auth: req.headers.authorization });
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as { port: number }).port,
    seen,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A resolver that answers `answers[i]` to its i-th call (the last one ever after) and counts its calls. */
function scripted(...answers: string[][]) {
  const calls: string[] = [];
  const resolve = async (host: string): Promise<ResolvedAddress[]> => {
    calls.push(host);
    const list = answers[Math.min(calls.length - 1, answers.length - 1)]!;
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { calls, resolve };
}

describe('OutboundHttp', () => {
  let a: Awaited<ReturnType<typeof listener>>;
  let b: Awaited<ReturnType<typeof listener>>;
  beforeAll(async () => {
    a = await listener('127.0.0.1');
    // Same port on another loopback address: a second lookup answering 127.0.0.2 would land here.
    b = await listener('127.0.0.2', a.port);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  const client = (resolve: ReturnType<typeof scripted>['resolve'], allowLocal: boolean) =>
    new OutboundHttp({ allowLocal: async () => allowLocal, timeoutMs: 2000, resolve });

  it('refuses a name that resolves to loopback, or to any local address among public ones, without connecting', async () => {
    for (const answer of [['127.0.0.1'], ['8.8.8.8', '127.0.0.1'], ['2606:4700::1', '::ffff:7f00:1']]) {
      const r = scripted(answer);
      const err = await client(r.resolve, false)
        .request(`http://sentry.example.com:${a.port}/api/0/projects/`, { maxResponseBytes: 1024 })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OutboundError);
      expect(err).toMatchObject({ reason: 'blocked', message: LOCAL_REFUSAL });
      expect(r.calls).toEqual(['sentry.example.com']);
    }
    for (const literal of [
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[::127.0.0.1]',
      '2130706433',
      '0x7f.1',
    ]) {
      const r = scripted(['8.8.8.8']);
      const err = await client(r.resolve, false)
        .request(`http://${literal}:${a.port}/`, { maxResponseBytes: 1024 })
        .catch((e: unknown) => e);
      expect(err, literal).toMatchObject({ reason: 'blocked' });
      expect(r.calls, literal).toEqual([]); // an address literal is checked as is, never resolved
    }
    expect(a.seen).toEqual([]);
    expect(b.seen).toEqual([]);
  });

  it('connects to exactly the address it checked: one lookup, the Host header keeps the name', async () => {
    // A rebinding resolver: 127.0.0.1 the first time, 127.0.0.2 ever after.
    const r = scripted(['127.0.0.1'], ['127.0.0.2']);
    const res = await client(r.resolve, true).request(`http://sentry.example.com:${a.port}/api/0/x?y=1`, {
      headers: { authorization: 'Bearer t' },
      maxResponseBytes: 1024,
    });
    expect(res).toMatchObject({ status: 200, body: '{"ok":true}' });
    expect(r.calls).toEqual(['sentry.example.com']);
    expect(a.seen).toEqual([
      { host: `sentry.example.com:${a.port}`, path: '/api/0/x?y=1', auth: 'Bearer t' },
    ]);
    expect(b.seen).toEqual([]);
    a.seen.length = 0;
  });

  it('never asks the resolver twice: a public answer for the check is where the connection goes', async () => {
    // The check sees a public address; a second lookup would say loopback. Only one lookup happens, so the
    // connection goes to the public address (unreachable here) and never to the loopback listener.
    const r = scripted(['192.88.98.1'], ['127.0.0.1']);
    const err = await new OutboundHttp({ allowLocal: async () => false, timeoutMs: 500, resolve: r.resolve })
      .request(`http://rebind.example.com:${a.port}/`, { maxResponseBytes: 1024 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundError);
    expect((err as OutboundError).reason).not.toBe('blocked');
    expect(r.calls).toEqual(['rebind.example.com']);
    expect(a.seen).toEqual([]);
  });

  it('bounds name resolution by the request deadline', async () => {
    const hanging = new OutboundHttp({
      allowLocal: async () => false,
      timeoutMs: 200,
      resolve: () => new Promise<never>(() => undefined),
    });
    await expect(hanging.addresses(new URL('http://slow.example/'))).rejects.toMatchObject({
      reason: 'timeout',
    });
    await expect(hanging.request('http://slow.example/', { maxResponseBytes: 1 })).rejects.toMatchObject({
      reason: 'timeout',
    });
  });

  it('does not follow redirects, bounds the response, and names its failures', async () => {
    const redirecting = createServer((req, res) => {
      if (req.url === '/big') return void res.end('x'.repeat(10_000));
      res.writeHead(302, { location: `http://127.0.0.1:${a.port}/followed` }).end();
    });
    await new Promise<void>((r) => redirecting.listen(0, '127.0.0.1', () => r()));
    const port = (redirecting.address() as { port: number }).port;
    try {
      const http = client(scripted(['127.0.0.1']).resolve, true);
      const res = await http.request(`http://127.0.0.1:${port}/`, { maxResponseBytes: 1024 });
      expect(res.status).toBe(302);
      expect(a.seen).toEqual([]);
      await expect(
        http.request(`http://127.0.0.1:${port}/big`, { maxResponseBytes: 1024 }),
      ).rejects.toMatchObject({ reason: 'too_large' });
      await expect(http.request('ftp://127.0.0.1/', { maxResponseBytes: 1 })).rejects.toMatchObject({
        reason: 'invalid_url',
      });
      await expect(
        client(scripted([]).resolve, false).request('http://nowhere.invalid/', { maxResponseBytes: 1 }),
      ).rejects.toMatchObject({ reason: 'unresolvable' });
    } finally {
      await new Promise<void>((r) => redirecting.close(() => r()));
    }
  });
});
