import { promisify } from 'node:util';
import {
  brotliDecompress,
  brotliDecompressSync,
  createBrotliDecompress,
  createGunzip,
  createInflate,
  createInflateRaw,
  gunzip,
  gunzipSync,
  inflate,
  inflateRaw,
  inflateRawSync,
  inflateSync,
} from 'node:zlib';
import type { ErrorKind } from '../errors.js';

/** The Sentry wire protocol: body decoding (bounded), envelopes, auth. Pure apart from zlib. */

/**
 * A request the collector refuses, with the kind of refusal (the HTTP table gives its status) and Sentry's reason
 * (`404 Not Found`, `400 Bad request - ...`). The collector's routes shape the answer: the reason as
 * `{"message": ...}` and in Sentry's `X-Sentry-Error` header.
 */
export class ProtocolError extends Error {
  constructor(
    readonly kind: Extract<
      ErrorKind,
      'bad_request' | 'not_found' | 'too_large' | 'unsupported_media_type' | 'rate_limited'
    >,
    message: string,
  ) {
    super(message);
    this.name = 'ProtocolError';
  }
}

/**
 * Small bodies (the usual single event) are decompressed synchronously: a thread-pool round trip costs more
 * than inflating a few kilobytes. Larger ones go to the thread pool so the event loop keeps serving. Deflate
 * expands at most ~1032:1, so a synchronous inflate produces at most ~8 MB (a few milliseconds).
 */
const SYNC_BELOW = 8 * 1024;
type Inflate = (b: Buffer, o: object) => Promise<Buffer>;
const either = (sync: (b: Buffer, o: object) => Buffer, async: Inflate): Inflate => {
  const viaPool = promisify(async) as Inflate;
  return async (b, o) => (b.length < SYNC_BELOW ? sync(b, o) : viaPool(b, o));
};
const gunzipAsync = either(gunzipSync, gunzip as never);
const inflateAsync = either(inflateSync, inflate as never);
const inflateRawAsync = either(inflateRawSync, inflateRaw as never);
const brotliAsync = either(brotliDecompressSync, brotliDecompress as never);

const tooLarge = (limit: number) =>
  new ProtocolError('too_large', `413 Request Entity Too Large - more than ${limit} bytes once decompressed`);
const undecodable = () =>
  new ProtocolError('bad_request', '400 Bad request - Failed to decompress the request body');

/** Decompresses with a hard output cap: a compression bomb stops at `limit` bytes, whatever its size. */
async function bounded(
  fn: (b: Buffer, o: object) => Promise<Buffer>,
  body: Buffer,
  limit: number,
): Promise<Buffer> {
  try {
    return await fn(body, { maxOutputLength: limit });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) throw tooLarge(limit);
    throw undecodable();
  }
}

type Coding = 'gzip' | 'deflate' | 'br' | null;

/**
 * The one content coding of a request: gzip, deflate or br (or none). Several codings (`gzip, gzip`) are
 * refused: no SDK sends them, and each layer would multiply the work.
 */
export function contentCoding(contentEncoding: string | undefined): Coding {
  const encodings = (contentEncoding ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== '' && e !== 'identity');
  if (encodings.length > 1)
    throw new ProtocolError(
      'unsupported_media_type',
      '415 Unsupported Media Type - at most one Content-Encoding is supported',
    );
  const enc = encodings[0];
  if (enc === undefined) return null;
  if (enc === 'gzip' || enc === 'x-gzip') return 'gzip';
  if (enc === 'deflate' || enc === 'br') return enc;
  throw new ProtocolError(
    'unsupported_media_type',
    `415 Unsupported Media Type - Content-Encoding ${enc.slice(0, 40)} is not supported`,
  );
}

/**
 * The request body as JSON text: Content-Encoding gzip, deflate (zlib or raw) or br, and raven-ruby's base64 of
 * zlib data (sent as application/octet-stream with no Content-Encoding, detected by its `eJ` prefix). One layer
 * at most, and at most `limit` bytes out.
 */
export async function decodeBody(
  body: Buffer,
  contentEncoding: string | undefined,
  limit: number,
): Promise<Buffer> {
  const coding = contentCoding(contentEncoding);
  let out = body;
  if (coding === 'gzip') out = await bounded(gunzipAsync, out, limit);
  else if (coding === 'deflate') {
    // RFC 9110 deflate is zlib-wrapped; some clients send raw deflate.
    out =
      out[0] === 0x78 ? await bounded(inflateAsync, out, limit) : await bounded(inflateRawAsync, out, limit);
  } else if (coding === 'br') out = await bounded(brotliAsync, out, limit);
  else if (out.length > 2 && out[0] === 0x65 && out[1] === 0x4a) {
    // base64("x\x9c...") starts with "eJ": zlib inside base64 (the store endpoint's legacy wrapper).
    const text = out.toString('latin1').trim();
    if (/^[A-Za-z0-9+/=\r\n]+$/.test(text))
      out = await bounded(inflateAsync, Buffer.from(text, 'base64'), limit);
  }
  if (out.length > limit) throw tooLarge(limit);
  return out;
}

/**
 * The first line of the decoded body (an envelope's header), decompressing no more than `limit` bytes: enough
 * to read the `dsn` that authenticates the request before the body is decompressed in full. Streams on the
 * thread pool and stops as soon as the line ends, so a bomb behind an unknown key costs next to nothing.
 */
export async function decodeFirstLine(
  body: Buffer,
  contentEncoding: string | undefined,
  limit: number,
): Promise<Buffer> {
  const coding = contentCoding(contentEncoding);
  const firstLine = (b: Buffer) => {
    const nl = b.indexOf(0x0a);
    if (nl !== -1) return b.subarray(0, nl);
    if (b.length > limit)
      throw new ProtocolError('bad_request', '400 Bad request - Envelope header is too long');
    return b;
  };
  if (coding === null) return firstLine(body.subarray(0, limit + 1));
  const stream =
    coding === 'gzip'
      ? createGunzip()
      : coding === 'br'
        ? createBrotliDecompress()
        : body[0] === 0x78
          ? createInflate()
          : createInflateRaw();
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err: unknown, value?: Buffer) => {
      if (done) return;
      done = true;
      stream.removeAllListeners('data');
      stream.on('error', () => undefined);
      stream.destroy();
      if (err) reject(err);
      else resolve(value!);
    };
    const tooLong = () => new ProtocolError('bad_request', '400 Bad request - Envelope header is too long');
    stream.on('data', (chunk: Buffer) => {
      const nl = chunk.indexOf(0x0a);
      if (nl !== -1) {
        // The line ends in this chunk, but may still be longer than the limit (a property test found one).
        if (size + nl > limit) return finish(tooLong());
        chunks.push(chunk.subarray(0, nl));
        return finish(null, Buffer.concat(chunks));
      }
      chunks.push(chunk);
      size += chunk.length;
      if (size > limit) finish(tooLong());
    });
    stream.on('end', () => finish(null, Buffer.concat(chunks)));
    stream.on('error', () => finish(chunks.length > 0 ? null : undecodable(), Buffer.concat(chunks)));
    stream.end(body);
  });
}

/**
 * Reads `sentry_key` from an `X-Sentry-Auth` or `Authorization` header
 * (`Sentry sentry_version=7, sentry_key=..., ...`); an `Authorization` header of another scheme carries none.
 */
export function keyFromAuthHeader(header: unknown): string | null {
  if (typeof header !== 'string' || header === '' || header.length > 8192) return null;
  const m = /(?:^|[\s,])sentry_key\s*=\s*([A-Za-z0-9_-]{1,256})(?![A-Za-z0-9_-])/.exec(header);
  return m ? m[1]! : null;
}

/** Reads the public key from a DSN (`https://<key>[:<secret>]@host/...`). */
export function keyFromDsn(dsn: unknown): string | null {
  if (typeof dsn !== 'string') return null;
  try {
    const u = new URL(dsn);
    return u.username ? decodeURIComponent(u.username) : null;
  } catch {
    return null;
  }
}

export interface EnvelopeItem {
  readonly headers: Record<string, unknown>;
  readonly payload: Buffer;
}

export interface Envelope {
  readonly headers: Record<string, unknown>;
  readonly items: EnvelopeItem[];
}

/** Parses one header line (the envelope's or an item's): a JSON object, else 400. */
export function parseHeader(line: Buffer, what: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(line.toString('utf8'));
  } catch {
    throw new ProtocolError('bad_request', `400 Bad request - Invalid ${what}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new ProtocolError('bad_request', `400 Bad request - Invalid ${what}`);
  return v as Record<string, unknown>;
}

/**
 * Parses an envelope (Sentry's "Serialization Format"): a header line, then items of a header line and a
 * payload that is `length` bytes when given, else runs to the next newline or the end. More than `maxItems`
 * items: 400, before any of the excess is parsed.
 */
export function parseEnvelope(body: Buffer, maxItems = Number.POSITIVE_INFINITY): Envelope {
  const NL = 0x0a;
  let pos = body.indexOf(NL);
  const headerEnd = pos === -1 ? body.length : pos;
  if (headerEnd === 0 && body.length <= 1)
    throw new ProtocolError('bad_request', '400 Bad request - Empty envelope');
  const headers = parseHeader(body.subarray(0, headerEnd), 'envelope header');
  const items: EnvelopeItem[] = [];
  pos = headerEnd + 1;
  while (pos < body.length) {
    // Blank lines between items are tolerated.
    if (body[pos] === NL) {
      pos++;
      continue;
    }
    const lineEnd = body.indexOf(NL, pos);
    const itemHeaderEnd = lineEnd === -1 ? body.length : lineEnd;
    if (items.length >= maxItems)
      throw new ProtocolError(
        'bad_request',
        `400 Bad request - too many items in envelope (at most ${maxItems})`,
      );
    const itemHeaders = parseHeader(body.subarray(pos, itemHeaderEnd), 'item header');
    pos = itemHeaderEnd + 1;
    const length = itemHeaders.length;
    let payload: Buffer;
    if (typeof length === 'number' && Number.isInteger(length) && length >= 0) {
      if (pos + length > body.length)
        throw new ProtocolError('bad_request', '400 Bad request - Envelope item is shorter than its length');
      payload = body.subarray(pos, pos + length);
      pos += length;
      if (pos < body.length) {
        if (body[pos] !== NL)
          throw new ProtocolError('bad_request', '400 Bad request - Envelope item is longer than its length');
        pos++;
      }
    } else {
      const end = body.indexOf(NL, pos);
      const payloadEnd = end === -1 ? body.length : end;
      payload = body.subarray(Math.min(pos, body.length), payloadEnd);
      pos = payloadEnd + 1;
    }
    items.push({ headers: itemHeaders, payload });
  }
  return { headers, items };
}

/** Parses a JSON payload, 400 when it is not JSON. */
export function parseJson(buf: Buffer): unknown {
  try {
    return JSON.parse(buf.toString('utf8'));
  } catch {
    throw new ProtocolError('bad_request', '400 Bad request - Failed to parse sentry request');
  }
}
