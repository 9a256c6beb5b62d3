import { isIP } from 'node:net';

/** One CIDR block: the address as a big integer, its prefix length and family. */
export interface CidrBlock {
  readonly family: 4 | 6;
  readonly base: bigint;
  readonly prefix: number;
}

/** An invalid CIDR list entry, with the reason (config turns it into a ConfigError naming the key). */
export class CidrError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CidrError';
  }
}

function v4ToBigInt(address: string): bigint {
  return address.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function v6ToBigInt(address: string): bigint {
  let text = address;
  // A trailing dotted quad (`::ffff:1.2.3.4`) becomes two hex groups.
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const n = v4ToBigInt(quad[1]!);
    text = `${text.slice(0, quad.index)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headParts = head ? head.split(':') : [];
  const tailParts = tail ? tail.split(':') : [];
  const missing = 8 - headParts.length - tailParts.length;
  const groups = tail === undefined ? headParts : [...headParts, ...Array(missing).fill('0'), ...tailParts];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(Number.parseInt(g || '0', 16)), 0n);
}

/**
 * Normalises a client address: IPv4-mapped IPv6 (`::ffff:127.0.0.1`, as a dual-stack socket reports IPv4
 * clients) becomes the IPv4 address; zone ids are dropped. Returns null for anything that is not an address.
 */
export function normaliseAddress(address: string): { family: 4 | 6; value: bigint } | null {
  const plain = address.replace(/%.*$/, '');
  const family = isIP(plain);
  if (family === 4) return { family: 4, value: v4ToBigInt(plain) };
  if (family !== 6) return null;
  const value = v6ToBigInt(plain.toLowerCase());
  if (value >> 32n === 0xffffn) return { family: 4, value: value & 0xffffffffn };
  return { family: 6, value };
}

/** Parses `127.0.0.0/8,::1/128` (commas or spaces; a bare address is a /32 or /128). Throws CidrError. */
export function parseCidrList(text: string): CidrBlock[] {
  const blocks: CidrBlock[] = [];
  for (const entry of text.split(/[\s,]+/).filter(Boolean)) {
    const slash = entry.indexOf('/');
    const addr = slash < 0 ? entry : entry.slice(0, slash);
    const n = normaliseAddress(addr);
    if (!n || addr.includes('%')) throw new CidrError(`"${entry}" is not an IP address or CIDR block`);
    // A mapped block (::ffff:10.0.0.0/104) is the IPv4 block it maps.
    const mapped = n.family === 4 && isIP(addr) === 6;
    const max = n.family === 4 ? 32 : 128;
    let prefix = max;
    if (slash >= 0) {
      const p = entry.slice(slash + 1);
      if (!/^\d{1,3}$/.test(p)) throw new CidrError(`"${entry}" has an invalid prefix length`);
      prefix = Number(p) - (mapped ? 96 : 0);
      if (prefix < 0 || prefix > max) throw new CidrError(`"${entry}" has an invalid prefix length`);
    }
    const bits = BigInt(max - prefix);
    blocks.push({ family: n.family, base: (n.value >> bits) << bits, prefix });
  }
  return blocks;
}

/** Whether a client address is inside one of the blocks (IPv4-mapped clients match IPv4 blocks). */
export function addressAllowed(address: string | undefined, blocks: readonly CidrBlock[]): boolean {
  if (!address) return false;
  const n = normaliseAddress(address);
  if (!n) return false;
  return blocks.some((b) => {
    if (b.family !== n.family) return false;
    const bits = BigInt((b.family === 4 ? 32 : 128) - b.prefix);
    return (n.value >> bits) << bits === b.base;
  });
}
