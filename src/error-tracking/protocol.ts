import { promisify } from 'node:util';
import {
  brotliDecompress,
  brotliDecompressSync,
  gunzip,
  gunzipSync,
  inflate,
  inflateRaw,
  inflateRawSync,
  inflateSync,
} from 'node:zlib';

/** The Sentry wire protocol: body decoding (bounded), envelopes, auth. Pure apart from zlib. */

/** A request the collector refuses: status and message (GitLab-shaped body built by the caller). */
export class ProtocolError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Small bodies (the usual single event) are decompressed synchronously: a thread-pool round trip costs more
 * than inflating a few kilobytes. Larger ones go to the thread pool so the event loop keeps serving.
 */
const SYNC_BELOW = 64 * 1024;
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
  new ProtocolError(413, `413 Request Entity Too Large - more than ${limit} bytes once decompressed`);

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
    throw new ProtocolError(400, '400 Bad request - Failed to decompress the request body');
  }
}

/**
 * The request body as JSON text: Content-Encoding gzip, deflate (zlib or raw) or br, and raven-ruby's base64 of
 * zlib data (sent as application/octet-stream with no Content-Encoding, detected by its `eJ` prefix).
 */
export async function decodeBody(
  body: Buffer,
  contentEncoding: string | undefined,
  limit: number,
): Promise<Buffer> {
  let out = body;
  const encodings = (contentEncoding ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== '' && e !== 'identity');
  for (const enc of encodings.reverse()) {
    if (enc === 'gzip' || enc === 'x-gzip') out = await bounded(gunzipAsync, out, limit);
    else if (enc === 'deflate') {
      // RFC 9110 deflate is zlib-wrapped; some clients send raw deflate.
      out =
        out[0] === 0x78
          ? await bounded(inflateAsync, out, limit)
          : await bounded(inflateRawAsync, out, limit);
    } else if (enc === 'br') out = await bounded(brotliAsync, out, limit);
    else
      throw new ProtocolError(415, `415 Unsupported Media Type - Content-Encoding ${enc} is not supported`);
  }
  if (encodings.length === 0 && out.length > 2 && out[0] === 0x65 && out[1] === 0x4a) {
    // base64("x\x9c...") starts with "eJ": zlib inside base64 (the store endpoint's legacy wrapper).
    const text = out.toString('latin1').trim();
    if (/^[A-Za-z0-9+/=\r\n]+$/.test(text))
      out = await bounded(inflateAsync, Buffer.from(text, 'base64'), limit);
  }
  if (out.length > limit) throw tooLarge(limit);
  return out;
}

/** Reads `sentry_key` from an `X-Sentry-Auth` header (`Sentry sentry_version=7, sentry_key=..., ...`). */
export function keyFromAuthHeader(header: string | undefined): string | null {
  if (!header) return null;
  const m = /(?:^|[\s,])sentry_key\s*=\s*([A-Za-z0-9_-]+)/.exec(header);
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

function parseHeader(line: Buffer, what: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(line.toString('utf8'));
  } catch {
    throw new ProtocolError(400, `400 Bad request - Invalid ${what}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new ProtocolError(400, `400 Bad request - Invalid ${what}`);
  return v as Record<string, unknown>;
}

/**
 * Parses an envelope (Sentry's "Serialization Format"): a header line, then items of a header line and a
 * payload that is `length` bytes when given, else runs to the next newline or the end.
 */
export function parseEnvelope(body: Buffer): Envelope {
  const NL = 0x0a;
  let pos = body.indexOf(NL);
  const headerEnd = pos === -1 ? body.length : pos;
  if (headerEnd === 0 && body.length <= 1) throw new ProtocolError(400, '400 Bad request - Empty envelope');
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
    const itemHeaders = parseHeader(body.subarray(pos, itemHeaderEnd), 'item header');
    pos = itemHeaderEnd + 1;
    const length = itemHeaders.length;
    let payload: Buffer;
    if (typeof length === 'number' && Number.isInteger(length) && length >= 0) {
      if (pos + length > body.length)
        throw new ProtocolError(400, '400 Bad request - Envelope item is shorter than its length');
      payload = body.subarray(pos, pos + length);
      pos += length;
      if (pos < body.length) {
        if (body[pos] !== NL)
          throw new ProtocolError(400, '400 Bad request - Envelope item is longer than its length');
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
    throw new ProtocolError(400, '400 Bad request - Failed to parse sentry request');
  }
}
