import { describe, expect, it } from 'vitest';
import { cspTitle, discardedCounts, FormErrors, feedbackFromForm, securityEvents } from './reports.js';

describe('security report titles (as Relay titles them)', () => {
  it.each([
    ['script-src', 'https://evil.com/x.js', "Blocked 'script' from 'evil.com'"],
    ['script-src', 'inline', "Blocked unsafe inline 'script'"],
    ['script-src', 'eval', "Blocked unsafe eval() 'script'"],
    ['script-src', 'self', "Blocked unsafe (eval() or inline) 'script'"],
    ['style-src-elem', 'http://example.com/css/style.css', "Blocked 'style' from 'example.com'"],
    ['img-src', 'data', "Blocked 'image' from 'data:'"],
    ['img-src', 'https://cdn.example:8443/a.png', "Blocked 'image' from 'cdn.example:8443'"],
    ['connect-src', 'wss://live.example/socket', "Blocked 'connect' from 'wss://live.example'"],
    ['form-action', 'https://phish.example/post', "Blocked 'form' action to 'phish.example'"],
    ['frame-ancestors', 'https://other.example/', "Blocked 'frame-ancestors' from 'other.example'"],
    ['style-src-attr', '', 'Blocked style attribute'],
  ])('%s %s', (directive, uri, title) => {
    expect(cspTitle(directive, uri)).toBe(title);
  });

  it('reads the directive from violated-directive when effective-directive is absent (Firefox)', () => {
    const { events } = securityEvents(
      { 'csp-report': { 'violated-directive': "script-src 'self'", 'blocked-uri': 'https://evil.com/' } },
      null,
    );
    expect(events[0]).toMatchObject({
      type: 'csp',
      event: { logentry: { formatted: "Blocked 'script' from 'evil.com'" } },
    });
  });

  it('refuses a report without a known directive, and anything that is no report', () => {
    expect(() => securityEvents({ 'csp-report': { 'blocked-uri': 'x' } }, null)).toThrow(
      'no known directive',
    );
    expect(() => securityEvents('text', null)).toThrow('unsupported security report');
    expect(() => securityEvents({ 'expect-ct-report': {} }, null)).toThrow('no hostname');
  });
});

describe('feedback and client reports', () => {
  it('names every missing or invalid form field at once', () => {
    try {
      feedbackFromForm('a'.repeat(32), { email: 'nope' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(FormErrors);
      expect((err as FormErrors).errors).toEqual({
        name: ['This field is required.'],
        email: ['Enter a valid email address.'],
        comments: ['This field is required.'],
      });
    }
  });

  it('adds up discarded quantities per category and ignores malformed entries', () => {
    expect(
      discardedCounts({
        discarded_events: [
          { reason: 'queue_overflow', category: 'error', quantity: 2 },
          { reason: 'ratelimit_backoff', category: 'error', quantity: 3 },
          { reason: 'sample_rate', category: 'Transaction!', quantity: 1 },
          { category: 'span', quantity: -4 },
          'junk',
        ],
      }),
    ).toEqual({ 'discarded:error': 5, 'discarded:other': 1 });
  });
});
