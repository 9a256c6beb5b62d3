import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** Loopback, private, link-local, unique-local and unspecified addresses (IPv4 and IPv6). */
export function isLocalAddress(ip: string): boolean {
  if (isIP(ip) === 4) {
    const [a, b] = ip.split('.').map(Number) as [number, number];
    return (
      a === 127 ||
      a === 10 ||
      a === 0 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 169 && b === 254) ||
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  const v6 = ip.toLowerCase();
  if (v6.startsWith('::ffff:')) return isLocalAddress(v6.slice(7));
  return v6 === '::1' || v6 === '::' || v6.startsWith('fc') || v6.startsWith('fd') || v6.startsWith('fe80');
}

/**
 * Whether an outbound request to `url` may go out: hosts that resolve to local addresses only when the
 * application setting allows local requests. Returns a reason when refused, else null.
 */
export async function outboundRefusal(url: URL, allowLocal: boolean): Promise<string | null> {
  if (allowLocal) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host)
    ? [host]
    : (await lookup(host, { all: true }).catch(() => [])).map((a) => a.address);
  if (addresses.length === 0) return `cannot resolve ${host}`;
  return addresses.some(isLocalAddress) ? 'requests to the local network are not allowed' : null;
}
