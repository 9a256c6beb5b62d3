import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSecretParam, lenientDecode, REDACTED, redactUrl } from './redact.js';

/** Percent-encodes some characters of a name, in either case, the way a hostile client might. */
const spelled = (name: string) =>
  fc
    .array(fc.constantFrom('plain', 'lower', 'upper'), { minLength: name.length, maxLength: name.length })
    .map((modes) =>
      [...name]
        .map((ch, i) => {
          const hex = ch.charCodeAt(0).toString(16).padStart(2, '0');
          if (modes[i] === 'lower') return `%${hex.toLowerCase()}`;
          if (modes[i] === 'upper') return `%${hex.toUpperCase()}`;
          return ch;
        })
        .join(''),
    );

const SECRET = 'svcpat-Zq9-secret-value';

describe('redactUrl (property)', () => {
  it('never throws on any input, and is idempotent', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (url) => {
        const once = redactUrl(url);
        expect(redactUrl(once)).toBe(once);
        expect(() => lenientDecode(url)).not.toThrow();
      }),
      { numRuns: 500 },
    );
  });

  it('masks a credential parameter however its name is percent-encoded and wherever it sits', () => {
    const names = fc.constantFrom(
      'private_token',
      'access_token',
      'job_token',
      'sentry_key',
      'sentry_secret',
      'token',
      'password',
      'key',
    );
    fc.assert(
      fc.property(
        names.chain(spelled),
        fc.array(fc.stringMatching(/^[a-z]{1,5}=[a-z0-9]{0,5}$/), { maxLength: 3 }),
        fc.array(fc.stringMatching(/^[a-z]{1,5}=[a-z0-9]{0,5}$/), { maxLength: 3 }),
        fc.constantFrom('&', ';'),
        (name, before, after, sep) => {
          expect(isSecretParam(name)).toBe(true);
          const query = [...before, `${name}=${SECRET}`, ...after].join(sep);
          const out = redactUrl(`/api/v4/user?${query}`);
          expect(out).not.toContain(SECRET);
          expect(out).toContain(`${name}=${REDACTED}`);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('masks userinfo in absolute-form targets', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9]{1,8}$/), (user) => {
        const out = redactUrl(`http://${user}:${SECRET}@example.com/api/v4/user`);
        expect(out).not.toContain(SECRET);
      }),
      { numRuns: 100 },
    );
  });
});
