import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appErrorResponse, statusOf } from '../api/errors.js';
import { AppError } from '../errors.js';
import { gitRequestEncoding, parseGitRequest } from './smart-http.js';

/** Pieces git paths are made of, hostile ones included, so generated URLs often reach the git route. */
const piece = fc.oneof(
  fc.constantFrom(
    '/',
    '.git',
    '.git/',
    'info/refs',
    'git-upload-pack',
    'git-receive-pack',
    '?service=git-upload-pack',
    '?service=git-receive-pack',
    '?service=',
    '&service=x',
    'groups/',
    '.wiki',
    'snippets/',
    '99999999999999999999',
    '..',
    '%',
    '%2e',
    '%2F',
    '%E0%A4%A',
    '%00',
    '\u0000',
    '\n',
    '#',
  ),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.nat().map(String),
);
const url = fc.array(piece, { maxLength: 12 }).map((parts) => `/${parts.join('')}`);
const method = fc.oneof(
  fc.constantFrom('GET', 'POST', 'HEAD', 'PUT', 'OPTIONS', undefined),
  fc.string({ maxLength: 6 }),
);

const only4xx = (fn: () => unknown) => {
  try {
    return fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect(statusOf((err as AppError).kind)).toBeGreaterThanOrEqual(400);
    expect(statusOf((err as AppError).kind)).toBeLessThan(500);
    expect(typeof appErrorResponse(err as AppError).body.message).toBe('string');
    return err;
  }
};

describe('git smart HTTP request parsing (property)', () => {
  it('any method and URL: null, a git request, or a 4xx AppError; nothing else is thrown', () => {
    fc.assert(
      fc.property(method, url, (m, u) => {
        const r = only4xx(() => parseGitRequest(m, u));
        if (r && !(r instanceof AppError)) {
          const g = r as ReturnType<typeof parseGitRequest> & object;
          expect(['info/refs', 'git-upload-pack', 'git-receive-pack']).toContain(g.action);
          expect(['git-upload-pack', 'git-receive-pack']).toContain(g.service);
          expect(g.repoPath.length).toBeGreaterThan(0);
          // The request line matches what the action needs.
          expect(m).toBe(g.action === 'info/refs' ? 'GET' : 'POST');
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('parses what git sends', () => {
    expect(parseGitRequest('GET', '/g/p.git/info/refs?service=git-upload-pack')).toEqual({
      repoPath: 'g/p',
      action: 'info/refs',
      service: 'git-upload-pack',
    });
    expect(parseGitRequest('POST', '/g/sub/p.git/git-receive-pack')).toEqual({
      repoPath: 'g/sub/p',
      action: 'git-receive-pack',
      service: 'git-receive-pack',
    });
    expect(parseGitRequest('GET', '/api/v4/projects')).toBeNull();
    expect(parseGitRequest('GET', '/%E0%A4%A.git/info/refs')).toBeNull();
  });

  it('any Content-Encoding header: identity, one gzip layer, or 415', () => {
    const token = fc.oneof(
      fc.constantFrom('gzip', 'x-gzip', 'GZIP', 'identity', 'br', 'deflate', 'zstd', '', ' ', ','),
      fc.string({ unit: 'binary', maxLength: 6 }),
    );
    const header = fc.oneof(
      fc.constant(undefined),
      fc.array(token, { maxLength: 5 }).map((t) => t.join(',')),
      fc.array(
        fc.array(token, { maxLength: 3 }).map((t) => t.join(', ')),
        { maxLength: 3 },
      ),
    );
    fc.assert(
      fc.property(header, (h) => {
        const r = only4xx(() => gitRequestEncoding(h));
        if (r instanceof AppError) expect(statusOf(r.kind)).toBe(415);
        else expect(['identity', 'gzip']).toContain(r);
      }),
      { numRuns: 3000 },
    );
    expect(() => gitRequestEncoding('gzip, gzip')).toThrow(AppError);
    expect(gitRequestEncoding(' GZIP ')).toBe('gzip');
    expect(gitRequestEncoding('identity')).toBe('identity');
  });
});
