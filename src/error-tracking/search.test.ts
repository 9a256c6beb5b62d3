import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_SEARCH_TERMS, parseErrorSearch, SearchSyntaxError } from './search.js';

const fails = (q: string) => {
  try {
    parseErrorSearch(q);
  } catch (e) {
    if (e instanceof SearchSyntaxError) return e.message;
    throw e;
  }
  throw new Error(`parsed: ${q}`);
};

describe('parseErrorSearch', () => {
  it('reads keys, quoted values, negation and free text, in order', () => {
    expect(
      parseErrorSearch(
        'is:unresolved assigned:me release:1.2 environment:"prod eu" user.email:a@b.c has:user server:web-8 !browser:Firefox "disk full" boom',
      ),
    ).toEqual([
      { kind: 'is', value: 'unresolved', negated: false },
      { kind: 'assigned', value: 'me', negated: false },
      { kind: 'field', key: 'release', value: '1.2', negated: false },
      { kind: 'field', key: 'environment', value: 'prod eu', negated: false },
      { kind: 'field', key: 'user.email', value: 'a@b.c', negated: false },
      { kind: 'has', key: 'user', negated: false },
      { kind: 'tag', key: 'server', value: 'web-8', negated: false },
      { kind: 'tag', key: 'browser', value: 'Firefox', negated: true },
      { kind: 'text', value: 'disk full' },
      { kind: 'text', value: 'boom' },
    ]);
    // Unquoted words make one phrase wherever they stand (Sentry's raw search).
    expect(parseErrorSearch('cannot is:resolved read')).toEqual([
      { kind: 'is', value: 'resolved', negated: false },
      { kind: 'text', value: 'cannot read' },
    ]);
  });

  it('keeps a GitLab-style text search (a word ending in a colon, an escaped quote) as text', () => {
    expect(parseErrorSearch('TypeError: boom')).toEqual([{ kind: 'text', value: 'TypeError: boom' }]);
    expect(parseErrorSearch('"say \\"hi\\""')).toEqual([{ kind: 'text', value: 'say "hi"' }]);
    expect(parseErrorSearch('   ')).toEqual([]);
    expect(parseErrorSearch('a=b:c')).toEqual([{ kind: 'text', value: 'a=b:c' }]);
  });

  it('names the problem', () => {
    expect(fails('is:foo')).toBe(
      'Invalid search: unknown key "is:foo" (is: takes unresolved, resolved, ignored, assigned, unassigned)',
    );
    expect(fails('release:')).toBe('Invalid search: "release:" has no value');
    expect(fails('user.name:x')).toBe('Invalid search: unknown key "user.name"');
    expect(fails('"open')).toBe('Invalid search: unterminated quote at position 1');
    expect(fails('release:"1.0')).toBe('Invalid search: unterminated quote at position 9');
    expect(fails('"a"b')).toMatch(/expected a space after the quote/);
    expect(fails('x"y')).toMatch(/unexpected quote at position 2/);
    expect(fails('!"a"')).toMatch(/unexpected quote/);
    expect(fails(Array.from({ length: MAX_SEARCH_TERMS + 1 }, (_, i) => `w${i}`).join(' '))).toMatch(
      /more than 20 terms/,
    );
  });

  it('never throws anything but its own error, and what it returns is well formed', () => {
    const alphabet = fc.constantFrom(
      ...'ab:!"\\ .-_is:resolved has:user release:1 '.split(''),
      'is:',
      'assigned:',
      '"',
      ' ',
      '\t',
      '\u00e9',
      '\u0000',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 300 }),
          fc.array(alphabet, { maxLength: 60 }).map((a) => a.join('')),
        ),
        (q) => {
          try {
            const terms = parseErrorSearch(q);
            for (const t of terms) {
              if (t.kind === 'text') expect(t.value.length).toBeGreaterThan(0);
              else if (t.kind === 'tag' || t.kind === 'field' || t.kind === 'assigned')
                expect(t.value).not.toBe('');
            }
          } catch (e) {
            if (!(e instanceof SearchSyntaxError)) throw e;
            expect(e.message).toMatch(/^Invalid search: /);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});
