import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BACKUP_TABLES, LATER_TABLES } from '../../src/backup/backup.repository.js';
import { BackupError, parseManifest } from '../../src/backup/backup.service.js';

const hex = (n: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${n}}$`));

/** A well-formed manifest: every table and file listed, repositories with their bundles. */
const manifest = fc
  .record({
    createdAt: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    release: fc.constantFrom('16.11', '17.0', '18.2'),
    counts: fc.array(fc.nat(), { minLength: BACKUP_TABLES.length, maxLength: BACKUP_TABLES.length }),
    repos: fc.uniqueArray(
      fc.record({
        kind: fc.constantFrom('project', 'snippet', 'group'),
        id: fc.integer({ min: 1, max: 1_000_000 }),
        storage: fc.constantFrom('default', 'other_1', 'fast-ssd'),
        bundled: fc.boolean(),
        checksum: hex(40),
        defaultBranch: fc.constantFrom('main', 'master', 'release/1.x', 'ünïcode'),
        sum: hex(64),
      }),
      { selector: (r) => `${r.kind}:${r.id}`, maxLength: 5 },
    ),
    sum: hex(64),
  })
  .map((g) => {
    const files: Record<string, string> = { 'secret.key': g.sum };
    for (const t of BACKUP_TABLES) files[`db/${t}.jsonl`] = g.sum;
    const repositories = g.repos.map((r) => {
      const bundle = r.bundled ? `repos/${r.kind}-${r.id}.bundle` : null;
      if (bundle) files[bundle] = r.sum;
      return {
        kind: r.kind,
        id: r.id,
        storage: r.storage,
        bundle,
        checksum: r.checksum,
        defaultBranch: r.defaultBranch,
      };
    });
    return {
      format: 1,
      createdAt: g.createdAt,
      release: g.release,
      tables: Object.fromEntries(BACKUP_TABLES.map((t, i) => [t, g.counts[i]!])),
      repositories,
      files,
    };
  });

/** Parses, or throws nothing but BackupError. */
function parses(text: string): boolean {
  try {
    parseManifest(text);
    return true;
  } catch (err) {
    expect(err).toBeInstanceOf(BackupError);
    return false;
  }
}

/** Sets `value` at a random path inside `obj` (a copy). */
function mutate(obj: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0 || typeof obj !== 'object' || obj === null) return value;
  const copy: any = Array.isArray(obj) ? [...obj] : { ...(obj as object) };
  const keys = Object.keys(copy);
  if (keys.length === 0) return copy;
  const key = keys[Math.abs(Number(path[0]) || 0) % keys.length]!;
  copy[key] = mutate(copy[key], path.slice(1), value);
  return copy;
}

describe('parseManifest (an archive from outside)', () => {
  it('reads back every well-formed manifest unchanged', () => {
    fc.assert(
      fc.property(manifest, (m) => {
        expect(parseManifest(JSON.stringify(m))).toEqual(m);
      }),
      { numRuns: 200 },
    );
  });

  it('reads a manifest written before a later table existed, with that table empty', () => {
    fc.assert(
      fc.property(manifest, (m) => {
        const older = structuredClone(m);
        for (const t of LATER_TABLES) {
          delete (older.tables as Record<string, number>)[t];
          delete older.files[`db/${t}.jsonl`];
        }
        const parsed = parseManifest(JSON.stringify(older));
        for (const t of LATER_TABLES) expect(parsed.tables[t]).toBe(0);
        // Any other table missing is still refused.
        const broken = structuredClone(older);
        delete (broken.tables as Record<string, number>).users;
        expect(() => parseManifest(JSON.stringify(broken))).toThrow(BackupError);
      }),
      { numRuns: 50 },
    );
  });

  it('throws only BackupError on any text or JSON value', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
        ),
        (text) => {
          parses(text);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('throws only BackupError when any field of a valid manifest is replaced by any JSON value', () => {
    fc.assert(
      fc.property(
        manifest,
        fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
        fc.jsonValue(),
        (m, path, value) => {
          parses(JSON.stringify(mutate(m, path, value)));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses paths outside the archive, option-like branches and unknown tables', () => {
    fc.assert(
      fc.property(
        manifest,
        fc.constantFrom(
          (m: any) => {
            m.files['../../etc/passwd'] = 'a'.repeat(64);
          },
          (m: any) => {
            m.files['/etc/shadow'] = 'a'.repeat(64);
          },
          (m: any) => {
            m.repositories.push({
              kind: 'project',
              id: 999_999_999,
              storage: 'default',
              bundle: '../x.bundle',
              checksum: '0'.repeat(40),
              defaultBranch: 'main',
            });
          },
          (m: any) => {
            m.repositories.push({
              kind: 'project',
              id: 999_999_998,
              storage: 'default',
              bundle: null,
              checksum: '0'.repeat(40),
              defaultBranch: '--upload-pack=touch /tmp/x',
            });
          },
          (m: any) => {
            m.tables.sessions = 1;
          },
        ),
        (m, change) => {
          const copy = structuredClone(m);
          change(copy);
          expect(() => parseManifest(JSON.stringify(copy))).toThrow(BackupError);
        },
      ),
      { numRuns: 100 },
    );
  });
});
