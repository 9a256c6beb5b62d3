import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';

/** One address a name resolves to. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Resolves a host name to every address it has (the system resolver by default; tests inject one). */
export type Resolver = (host: string) => Promise<readonly ResolvedAddress[]>;

/** Why an address is not a public unicast destination. */
export type AddressKind =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'shared'
  | 'link-local'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'reserved'
  | 'invalid';

/** The message of a request refused because of where it would go (GitLab's UrlBlocker wording). */
export const LOCAL_REFUSAL = 'requests to the local network are not allowed';

/** The system resolver: every address of the name, as the connection would see them (getaddrinfo, /etc/hosts). */
export const systemResolver: Resolver = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

const inV4 = (a: number, b: number, net: [number, number], bits: number): boolean => {
  const ip = ((a << 8) | b) >>> 0;
  const base = ((net[0] << 8) | net[1]) >>> 0;
  const mask = bits === 0 ? 0 : (0xffff << (16 - bits)) & 0xffff;
  return (ip & mask) === (base & mask);
};

/** Classifies an IPv4 address given as its four octets (RFC 6890 special-purpose ranges). */
function classifyV4(o: readonly number[]): AddressKind | null {
  const [a, b, c, d] = o as [number, number, number, number];
  if (a === 0) return 'unspecified'; // 0.0.0.0/8 "this network"; 0.0.0.0 reaches localhost on Linux
  if (a === 127) return 'loopback';
  if (a === 10 || inV4(a, b, [172, 16], 12) || (a === 192 && b === 168)) return 'private';
  if (inV4(a, b, [100, 64], 10)) return 'shared'; // carrier-grade NAT
  if (a === 169 && b === 254) return 'link-local'; // includes 169.254.169.254, the cloud metadata service
  if (a === 255 && b === 255 && c === 255 && d === 255) return 'broadcast';
  if (a >= 224 && a <= 239) return 'multicast';
  if (a >= 240) return 'reserved';
  if (a === 192 && b === 0 && c === 0) return 'reserved'; // IETF protocol assignments
  if (
    (a === 192 && b === 0 && c === 2) ||
    (a === 198 && b === 51 && c === 100) ||
    (a === 203 && b === 0 && c === 113)
  )
    return 'documentation';
  if (a === 192 && b === 88 && c === 99) return 'reserved'; // 6to4 relay anycast (deprecated)
  if (a === 198 && (b === 18 || b === 19)) return 'reserved'; // benchmarking
  return null;
}

/** The eight 16-bit groups of an IPv6 address (any spelling, with or without brackets or a zone), or null. */
export function parseIPv6(ip: string): number[] | null {
  let s = ip.trim().toLowerCase();
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (isIP(s) !== 6) return null;
  let v4: number[] = [];
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    const o = s
      .slice(lastColon + 1)
      .split('.')
      .map(Number);
    v4 = [((o[0]! << 8) | o[1]!) >>> 0, ((o[2]! << 8) | o[3]!) >>> 0];
    s = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const [head, tail] = s.includes('::') ? (s.split('::') as [string, string]) : [s, null];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((h) => Number.parseInt(h, 16)));
  const h = parse(head);
  const t = tail === null ? [] : parse(tail);
  const groups = tail === null ? h : [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return null;
  if (v4.length === 2) {
    groups[6] = v4[0]!;
    groups[7] = v4[1]!;
  }
  return groups;
}

const embeddedV4 = (hi: number, lo: number): number[] => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];

/** Classifies an IPv6 address by its groups; embedded IPv4 addresses are classified as IPv4. */
function classifyV6(g: readonly number[]): AddressKind | null {
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(8)) return 'unspecified';
  if (zeroUpTo(7) && g[7] === 1) return 'loopback';
  // IPv4-mapped (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96) and IPv4-compatible (::/96): the IPv4 inside.
  if (zeroUpTo(5) && g[5] === 0xffff) return classifyV4(embeddedV4(g[6]!, g[7]!));
  if (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) return classifyV4(embeddedV4(g[6]!, g[7]!));
  if (zeroUpTo(6)) return classifyV4(embeddedV4(g[6]!, g[7]!));
  // NAT64 well-known prefix 64:ff9b::/96 translates to the IPv4 inside; 64:ff9b:1::/48 is for local use.
  if (g[0] === 0x64 && g[1] === 0xff9b) {
    if (g.slice(2, 6).every((x) => x === 0)) return classifyV4(embeddedV4(g[6]!, g[7]!));
    return 'private';
  }
  if (g[0] === 0x2002) return classifyV4(embeddedV4(g[1]!, g[2]!)) ?? null; // 6to4 carries an IPv4 address
  const first = g[0]!;
  if (first >= 0xff00) return 'multicast';
  if ((first & 0xffc0) === 0xfe80) return 'link-local';
  if ((first & 0xffc0) === 0xfec0) return 'private'; // site-local (deprecated)
  if ((first & 0xfe00) === 0xfc00) return 'private'; // unique local fc00::/7
  if (first === 0x2001 && g[1] === 0x0db8) return 'documentation';
  if (first === 0x3fff && g[1]! < 0x1000) return 'documentation'; // 3fff::/20
  if (first === 0x2001 && g[1]! < 0x0200) return 'reserved'; // 2001::/23 IETF protocol assignments (Teredo, ...)
  if (first === 0x5f00) return 'reserved'; // SRv6 SIDs
  // Only 2000::/3 is allocated as global unicast; everything else (100::/64 discard, ...) is not a destination.
  if ((first & 0xe000) !== 0x2000) return 'reserved';
  return null;
}

/**
 * What kind of special-use address `ip` is, or null for a public unicast address. Takes any spelling the
 * resolver or WHATWG URL parsing produces (dotted IPv4; IPv6 with or without brackets, embedded IPv4 or zone);
 * anything that is not an address at all is 'invalid'.
 */
export function classifyAddress(ip: string): AddressKind | null {
  const s = ip.trim();
  if (isIP(s) === 4) return classifyV4(s.split('.').map(Number));
  const g = parseIPv6(s);
  return g ? classifyV6(g) : 'invalid';
}

/** Whether `ip` is loopback, private, link-local, unique-local, unspecified, multicast or otherwise special-use. */
export function isLocalAddress(ip: string): boolean {
  return classifyAddress(ip) !== null;
}

/** Why an outbound request did not complete. */
export type OutboundFailure =
  | 'invalid_url'
  | 'unresolvable'
  | 'blocked'
  | 'timeout'
  | 'connection_refused'
  | 'network'
  | 'too_large';

/** An outbound request that did not complete; `reason` says why (the message is safe to show and log). */
export class OutboundError extends Error {
  constructor(
    readonly reason: OutboundFailure,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

export interface OutboundRequest {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** The most response bytes read; more is a 'too_large' failure. */
  readonly maxResponseBytes: number;
  /** Accept any TLS certificate (a project hook with `enable_ssl_verification` off). */
  readonly insecureTls?: boolean;
}

export interface OutboundResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface OutboundOptions {
  /** Whether requests may go to local and special-use addresses (the application setting). */
  readonly allowLocal: () => Promise<boolean>;
  /** Deadline of the whole request (resolution, connection, response), in milliseconds. */
  readonly timeoutMs: number;
  readonly resolve?: Resolver;
}

/**
 * The one outbound HTTP client (external Sentry, audit event streaming, and later project webhooks). Each
 * request resolves its host once, refuses it when any address is local or special-use (unless local requests
 * are allowed), and connects to exactly the addresses that were checked: the socket's lookup answers from the
 * checked list, so a second DNS answer (rebinding) is never asked for. TLS SNI and certificate checks and the
 * Host header still use the name. Redirects are not followed; responses are read up to a limit.
 */
export class OutboundHttp {
  private readonly resolve: Resolver;

  constructor(private readonly options: OutboundOptions) {
    this.resolve = options.resolve ?? systemResolver;
  }

  /**
   * The addresses a request to `url` would connect to, checked (within the request deadline); throws
   * OutboundError when refused. Saving a destination uses it to refuse a local one up front.
   */
  async addresses(url: URL): Promise<readonly ResolvedAddress[]> {
    const deadline = this.deadline();
    return Promise.race([this.check(url), deadline.expired]);
  }

  /** Sends one request; resolves with any HTTP answer (3xx included, never followed). */
  async request(target: URL | string, init: OutboundRequest): Promise<OutboundResponse> {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      throw new OutboundError('invalid_url', 'the URL is not valid');
    }
    const deadline = this.deadline();
    const checked = await Promise.race([this.check(url), deadline.expired]);
    return Promise.race([send(url, checked, init, deadline.signal), deadline.expired]);
  }

  /** One deadline for a whole request: a signal for the socket, a promise that rejects when it passes. */
  private deadline(): { signal: AbortSignal; expired: Promise<never> } {
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    const expired = new Promise<never>((_, reject) =>
      signal.addEventListener('abort', () => reject(new OutboundError('timeout', 'the request timed out')), {
        once: true,
      }),
    );
    expired.catch(() => undefined);
    return { signal, expired };
  }

  private async check(url: URL): Promise<readonly ResolvedAddress[]> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new OutboundError('invalid_url', 'only http and https URLs are allowed');
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const family = isIP(host);
    let addresses: readonly ResolvedAddress[];
    if (family !== 0) addresses = [{ address: host, family: family === 6 ? 6 : 4 }];
    else {
      try {
        addresses = await this.resolve(host);
      } catch {
        addresses = [];
      }
    }
    if (addresses.length === 0) throw new OutboundError('unresolvable', `cannot resolve ${host}`);
    if (!(await this.options.allowLocal()) && addresses.some((a) => isLocalAddress(a.address)))
      throw new OutboundError('blocked', LOCAL_REFUSAL);
    return addresses;
  }
}

/** A socket lookup that answers only from the checked addresses (Happy Eyeballs asks for all of them). */
function pinnedLookup(checked: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const list = options.family ? checked.filter((a) => a.family === options.family) : checked;
    const use = list.length > 0 ? list : checked;
    if (options.all) (callback as (e: null, a: ResolvedAddress[]) => void)(null, [...use]);
    else callback(null, use[0]!.address, use[0]!.family);
  };
}

function send(
  url: URL,
  checked: readonly ResolvedAddress[],
  init: OutboundRequest,
  signal: AbortSignal,
): Promise<OutboundResponse> {
  return new Promise((resolve, reject) => {
    const fail = (err: unknown) => reject(toOutboundError(err));
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: init.method ?? 'GET',
        headers: {
          ...init.headers,
          ...(init.body !== undefined && { 'content-length': String(Buffer.byteLength(init.body)) }),
        },
        lookup: pinnedLookup(checked),
        // A fresh connection per request: a pooled socket could belong to an address checked under other settings.
        agent: false,
        ...(init.insecureTls && { rejectUnauthorized: false }),
        signal,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > init.maxResponseBytes) {
            res.destroy();
            req.destroy();
            reject(new OutboundError('too_large', 'the response is too large'));
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', fail);
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', fail);
    req.end(init.body);
  });
}

function toOutboundError(err: unknown): OutboundError {
  if (err instanceof OutboundError) return err;
  const e = err as { name?: string; code?: string };
  if (e?.name === 'AbortError' || e?.code === 'ABORT_ERR')
    return new OutboundError('timeout', 'the request timed out');
  if (e?.code === 'ECONNREFUSED') return new OutboundError('connection_refused', 'connection refused');
  return new OutboundError('network', 'the connection failed');
}
