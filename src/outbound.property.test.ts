import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { statusOf } from './api/errors.js';
import { normalizeHost } from './error-tracking/error-tracking.service.js';
import { isSentrySlug, sentryIssueId, sentryProjectApiUrl } from './error-tracking/sentry-client.js';
import { AppError } from './errors.js';
import { classifyAddress, OutboundError, OutboundHttp, parseIPv6 } from './outbound.js';

const RUNS = { numRuns: 300 };
const octets = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255));
const dotted = (o: readonly number[]) => o.join('.');
const groups = fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 });
/** The host as the outbound client sees it after WHATWG URL parsing. */
const urlHost = (spelling: string) => new URL(`http://${spelling}/`).hostname.replace(/^\[|\]$/g, '');

/** Only the typed 4xx error may come out of a parser of outside input. */
function onlyAppError4xx(fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect(statusOf((err as AppError).kind)).toBeGreaterThanOrEqual(400);
    expect(statusOf((err as AppError).kind)).toBeLessThan(500);
  }
}

describe('address classification (property)', () => {
  it('never throws, whatever the string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const kind = classifyAddress(s);
        expect(kind === null || typeof kind === 'string').toBe(true);
      }),
      RUNS,
    );
  });

  it('does not depend on the spelling of an IPv4 address: decimal, hex, octal, mapped, compatible, NAT64', () => {
    fc.assert(
      fc.property(octets, (o) => {
        const kind = classifyAddress(dotted(o));
        const n = ((o[0] << 24) | (o[1] << 16) | (o[2] << 8) | o[3]) >>> 0;
        const hex = (x: number) => x.toString(16);
        const hi = hex((o[0] << 8) | o[1]);
        const lo = hex((o[2] << 8) | o[3]);
        for (const spelling of [
          String(n),
          `0x${n.toString(16)}`,
          o.map((x) => `0${x.toString(8)}`).join('.'),
          `[::ffff:${dotted(o)}]`,
          `[::ffff:${hi}:${lo}]`,
          `[0:0:0:0:0:ffff:${hi}:${lo}]`,
          `[64:ff9b::${dotted(o)}]`,
        ]) {
          expect(classifyAddress(urlHost(spelling)), spelling).toBe(kind);
        }
        // IPv4-compatible (::a.b.c.d) is the IPv4 address, except where it spells :: or ::1.
        if (n > 1) expect(classifyAddress(urlHost(`[::${dotted(o)}]`))).toBe(kind);
      }),
      RUNS,
    );
  });

  it('does not depend on the spelling of an IPv6 address (full, compressed, upper case)', () => {
    fc.assert(
      fc.property(groups, (g) => {
        const full = g.map((x) => x.toString(16).padStart(4, '0')).join(':');
        expect(parseIPv6(full)).toEqual(g);
        const kind = classifyAddress(full);
        expect(classifyAddress(urlHost(`[${full}]`))).toBe(kind);
        expect(classifyAddress(full.toUpperCase())).toBe(kind);
        expect(classifyAddress(`[${full}]`)).toBe(kind);
      }),
      RUNS,
    );
  });

  it('lets no request through when any resolved address is local, however many public ones come with it', async () => {
    const local = fc.constantFrom(
      '127.0.0.1',
      '10.1.2.3',
      '169.254.169.254',
      '::1',
      '::ffff:7f00:1',
      'fe80::1',
      'fd00::1',
      '0.0.0.0',
      '100.64.0.1',
    );
    const pub = fc.constantFrom('8.8.8.8', '1.1.1.1', '2606:4700::1111');
    await fc.assert(
      fc.asyncProperty(fc.array(pub, { maxLength: 4 }), local, fc.nat(4), async (publics, bad, at) => {
        const list: string[] = [...publics];
        list.splice(Math.min(at, list.length), 0, bad);
        let calls = 0;
        const http = new OutboundHttp({
          allowLocal: async () => false,
          timeoutMs: 1000,
          resolve: async () => {
            calls++;
            return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }) as const);
          },
        });
        const err = await http.addresses(new URL('http://sentry.example.com/')).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(OutboundError);
        expect((err as OutboundError).reason).toBe('blocked');
        expect(calls).toBe(1);
      }),
      { numRuns: 100 },
    );
  });
});

describe('Sentry outbound path parameters (property)', () => {
  it('issue ids: only the typed 400 comes out, and what passes is digits only', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.stringMatching(/^[0-9./%a-z-]{0,12}$/)), (s) => {
        onlyAppError4xx(() => {
          expect(sentryIssueId(s)).toMatch(/^[1-9][0-9]*$/);
        });
      }),
      RUNS,
    );
  });

  it('stored project API URLs: only the typed 400 comes out, and what passes is a project URL of slugs', () => {
    const segment = fc.oneof(
      fc.stringMatching(/^[a-z0-9_.%/-]{0,8}$/),
      fc.constantFrom('..', '.', '%2e%2e', '%2E.', 'a%2Fb', '%', '%zz', 'acme'),
    );
    fc.assert(
      fc.property(
        fc.constantFrom('http://s.example', 'https://s.example:8443'),
        segment,
        segment,
        fc.string(),
        (origin, org, project, tail) => {
          for (const url of [
            `${origin}/api/0/projects/${org}/${project}/`,
            `${origin}/api/0/projects/${org}/${project}/${tail}`,
            tail,
          ]) {
            onlyAppError4xx(() => {
              const out = sentryProjectApiUrl(url);
              const m = /^https?:\/\/[^/]+\/api\/0\/projects\/([^/]+)\/([^/]+)\/$/.exec(out);
              expect(m).not.toBeNull();
              expect(isSentrySlug(m![1]!) && isSentrySlug(m![2]!)).toBe(true);
            });
          }
        },
      ),
      RUNS,
    );
  });

  it('api_host: only the typed 400 comes out, and what passes is an http(s) origin', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.webUrl()), (s) => {
        onlyAppError4xx(() => {
          expect(normalizeHost(s)).toMatch(/^https?:\/\/[^/]+$/);
        });
      }),
      RUNS,
    );
  });
});
