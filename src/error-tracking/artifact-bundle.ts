import { inflateRawSync } from 'node:zlib';

/**
 * Artifact bundles as `sentry-cli sourcemaps upload` sends them (pure): symbolic's source bundle, the bytes `SYSB`,
 * a 32-bit version, then a ZIP archive holding `manifest.json` and the files it describes (each with its URL,
 * type and headers: `debug-id`, `Sourcemap`). Only what the manifest names is read, within the limits given.
 */

export interface BundleFile {
  /** `~/path/app.min.js` or a full URL. */
  readonly url: string;
  /** `minified_source`, `source_map`, `source`, ... */
  readonly type: string;
  readonly debugId: string | null;
  /** The `Sourcemap` header of a minified file: its map's URL, relative to the file's. */
  readonly sourcemap: string | null;
  readonly content: string;
}

export interface ParsedBundle {
  readonly bundleId: string | null;
  readonly release: string | null;
  readonly dist: string | null;
  readonly files: readonly BundleFile[];
}

/** The bundle cannot be read: the assemble answers `error` with this text. */
export class BundleError extends Error {}

export interface BundleLimits {
  readonly maxFiles: number;
  /** Largest total of the files' uncompressed bytes. */
  readonly maxUncompressedBytes: number;
}

interface ZipEntry {
  readonly name: string;
  readonly method: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly localOffset: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** The central directory of a ZIP archive (no ZIP64: bundles are far below 4 GiB). */
function centralDirectory(zip: Buffer, maxEntries: number): ZipEntry[] {
  // The end record is in the last 64 KiB + 22 bytes (its comment is at most 65535 bytes).
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 65_557); i--) {
    if (zip.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new BundleError('the bundle is not a ZIP archive');
  const count = zip.readUInt16LE(eocd + 10);
  const cdSize = zip.readUInt32LE(eocd + 12);
  const declared = zip.readUInt32LE(eocd + 16);
  if (count > maxEntries) throw new BundleError(`the bundle holds more than ${maxEntries} files`);
  // Offsets are relative to the archive's start, which the bundle's own header may precede: measure the shift.
  const start = eocd - cdSize;
  if (start < 0) throw new BundleError('the bundle is damaged');
  const shift = start - declared;
  const entries: ZipEntry[] = [];
  let p = start;
  for (let n = 0; n < count; n++) {
    if (p + 46 > eocd || zip.readUInt32LE(p) !== CENTRAL) throw new BundleError('the bundle is damaged');
    const nameLength = zip.readUInt16LE(p + 28);
    const extraLength = zip.readUInt16LE(p + 30);
    const commentLength = zip.readUInt16LE(p + 32);
    entries.push({
      method: zip.readUInt16LE(p + 10),
      compressedSize: zip.readUInt32LE(p + 20),
      size: zip.readUInt32LE(p + 24),
      name: zip.toString('utf8', p + 46, p + 46 + nameLength),
      localOffset: zip.readUInt32LE(p + 42) + shift,
    });
    p += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

function entryData(zip: Buffer, e: ZipEntry, budget: { left: number }): Buffer {
  const p = e.localOffset;
  if (p < 0 || p + 30 > zip.length || zip.readUInt32LE(p) !== LOCAL)
    throw new BundleError('the bundle is damaged');
  const dataStart = p + 30 + zip.readUInt16LE(p + 26) + zip.readUInt16LE(p + 28);
  const end = dataStart + e.compressedSize;
  if (end > zip.length) throw new BundleError('the bundle is damaged');
  if (e.size > budget.left) throw new BundleError('the bundle is larger than allowed once unpacked');
  const raw = zip.subarray(dataStart, end);
  let data: Buffer;
  if (e.method === 0) data = raw;
  else if (e.method === 8) {
    try {
      // The declared size bounds the output: a bomb stops at what it claimed.
      data = inflateRawSync(raw, { maxOutputLength: Math.max(1, e.size) });
    } catch {
      throw new BundleError(`the bundle's file ${e.name} cannot be unpacked`);
    }
  } else throw new BundleError(`the bundle's file ${e.name} uses an unsupported compression`);
  budget.left -= data.length;
  return data;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** A debug ID as Sentry compares them: a lowercase UUID. */
export function normalizeDebugId(v: unknown): string | null {
  const s = str(v)
    ?.trim()
    .toLowerCase()
    .replace(/^\{|\}$/g, '');
  if (!s) return null;
  const hex = s.replaceAll('-', '');
  if (!/^[0-9a-f]{32}/.test(hex)) return null;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

function header(headers: Record<string, unknown>, name: string): string | null {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return str(v);
  return null;
}

/** Reads an artifact bundle: its attributes and the files its manifest lists. */
export function parseBundle(data: Buffer, limits: BundleLimits): ParsedBundle {
  const zip = data.subarray(0, 4).toString('latin1') === 'SYSB' ? data.subarray(8) : data;
  const entries = centralDirectory(zip, limits.maxFiles + 1);
  const byName = new Map(entries.map((e) => [e.name, e]));
  const budget = { left: limits.maxUncompressedBytes };
  const manifestEntry = byName.get('manifest.json');
  if (!manifestEntry) throw new BundleError('the bundle has no manifest.json');
  let manifest: unknown;
  try {
    manifest = JSON.parse(entryData(zip, manifestEntry, budget).toString('utf8'));
  } catch (err) {
    if (err instanceof BundleError) throw err;
    throw new BundleError("the bundle's manifest.json is not JSON");
  }
  if (!isObject(manifest) || !isObject(manifest.files))
    throw new BundleError("the bundle's manifest.json lists no files");
  const attributes = isObject(manifest.attributes) ? manifest.attributes : {};
  const files: BundleFile[] = [];
  for (const [path, info] of Object.entries(manifest.files)) {
    if (!isObject(info)) continue;
    const entry = byName.get(path) ?? byName.get(`files/${path}`);
    const url = str(info.url);
    if (!entry || !url) continue;
    const headers = isObject(info.headers) ? info.headers : {};
    files.push({
      url,
      type: str(info.type) ?? 'source',
      debugId: normalizeDebugId(header(headers, 'debug-id')),
      sourcemap: header(headers, 'sourcemap') ?? header(headers, 'x-sourcemap'),
      content: entryData(zip, entry, budget).toString('utf8'),
    });
  }
  if (files.length > limits.maxFiles)
    throw new BundleError(`the bundle holds more than ${limits.maxFiles} files`);
  return {
    bundleId: normalizeDebugId(attributes.debug_id) ?? str(attributes.debug_id),
    release: str(attributes.release),
    dist: str(attributes.dist),
    files,
  };
}
