import { crc32, deflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BundleError, normalizeDebugId, parseBundle } from './artifact-bundle.js';

/**
 * The artifact bundle reader takes bytes from outside (an upload's chunks joined): a bundle as sentry-cli writes it
 * (symbolic's `SYSB` header, then a ZIP with `manifest.json`) reads back whole; anything else, damaged or oversized,
 * is a BundleError (the assemble's `error` answer), never another exception.
 */

const RUNS = { numRuns: 150 };
const LIMITS = { maxFiles: 50, maxUncompressedBytes: 1024 * 1024 };

/** A ZIP archive as the zip crate writes one: local headers, then the central directory, then its end. */
function zip(entries: { name: string; data: Buffer; deflate: boolean }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const body = e.deflate ? deflateRawSync(e.data) : e.data;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(e.deflate ? 8 : 0, 8);
    local.writeUInt32LE(crc32(e.data), 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(e.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(e.deflate ? 8 : 0, 10);
    central.writeUInt32LE(crc32(e.data), 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(e.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += 30 + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

const withHeader = (z: Buffer) => {
  const h = Buffer.alloc(8);
  h.write('SYSB', 0, 'latin1');
  h.writeUInt32LE(2, 4);
  return Buffer.concat([h, z]);
};

const fileArb = fc.record({
  path: fc.stringMatching(/^[a-z]{1,8}\.(js|map)$/),
  content: fc.string({ maxLength: 300 }),
  deflate: fc.boolean(),
  debugId: fc.option(fc.uuid(), { nil: null }),
});

function bundleOf(files: { path: string; content: string; deflate: boolean; debugId: string | null }[]) {
  const unique = [...new Map(files.map((f) => [f.path, f])).values()];
  const manifest = {
    files: Object.fromEntries(
      unique.map((f) => [
        `files/_/_/${f.path}`,
        {
          url: `~/${f.path}`,
          type: f.path.endsWith('.map') ? 'source_map' : 'minified_source',
          headers: f.debugId ? { 'debug-id': f.debugId } : {},
        },
      ]),
    ),
    attributes: { debug_id: '0f0e0d0c-0b0a-0908-0706-050403020100', release: 'web@1.0' },
  };
  const entries = [
    { name: 'manifest.json', data: Buffer.from(JSON.stringify(manifest)), deflate: true },
    ...unique.map((f) => ({ name: `files/_/_/${f.path}`, data: Buffer.from(f.content), deflate: f.deflate })),
  ];
  return { unique, bytes: withHeader(zip(entries)) };
}

function expectBundleError(fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof BundleError)) throw err;
  }
}

describe('parseBundle', () => {
  it('reads back every file a bundle lists, with or without the SYSB header', () => {
    fc.assert(
      fc.property(fc.array(fileArb, { maxLength: 10 }), (files) => {
        const { unique, bytes } = bundleOf(files);
        for (const data of [bytes, bytes.subarray(8)]) {
          const parsed = parseBundle(data, LIMITS);
          expect(parsed.release).toBe('web@1.0');
          expect(parsed.files.map((f) => [f.url, f.content, f.debugId])).toEqual(
            unique.map((f) => [`~/${f.path}`, f.content, f.debugId]),
          );
        }
      }),
      RUNS,
    );
  });

  it('answers damaged or arbitrary bytes with a BundleError only', () => {
    fc.assert(
      fc.property(
        fc.array(fileArb, { minLength: 1, maxLength: 5 }),
        fc.nat(),
        fc.integer({ min: 0, max: 255 }),
        fc.boolean(),
        (files, at, byte, truncate) => {
          const { bytes } = bundleOf(files);
          const i = at % bytes.length;
          const damaged = truncate ? bytes.subarray(0, i) : Buffer.from(bytes);
          if (!truncate) damaged[i] = byte;
          expectBundleError(() => parseBundle(damaged, LIMITS));
        },
      ),
      RUNS,
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (raw) =>
        expectBundleError(() => parseBundle(Buffer.from(raw), LIMITS)),
      ),
      RUNS,
    );
  });

  it('refuses more files, or more unpacked bytes, than allowed', () => {
    const many = bundleOf(
      Array.from({ length: 6 }, (_, i) => ({
        path: `f${'abcdef'[i]}.js`,
        content: 'x',
        deflate: false,
        debugId: null,
      })),
    );
    expect(() => parseBundle(many.bytes, { maxFiles: 3, maxUncompressedBytes: 1 << 20 })).toThrow(
      BundleError,
    );
    const big = bundleOf([{ path: 'big.js', content: 'a'.repeat(100_000), deflate: true, debugId: null }]);
    expect(() => parseBundle(big.bytes, { maxFiles: 10, maxUncompressedBytes: 50_000 })).toThrow(
      /larger than allowed/,
    );
  });

  it('normalizes debug ids as Sentry compares them', () => {
    expect(normalizeDebugId('{0F0E0D0C-0B0A-0908-0706-050403020100}')).toBe(
      '0f0e0d0c-0b0a-0908-0706-050403020100',
    );
    expect(normalizeDebugId('0f0e0d0c0b0a09080706050403020100')).toBe('0f0e0d0c-0b0a-0908-0706-050403020100');
    expect(normalizeDebugId('not-an-id')).toBeNull();
  });
});
