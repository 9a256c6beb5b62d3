import {
  createCipheriv,
  createDecipheriv,
  createHash,
  randomBytes,
  scrypt,
  timingSafeEqual,
} from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (
  pw: string,
  salt: Buffer,
  len: number,
  opts: object,
) => Promise<Buffer>;
const SCRYPT = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/** A URL-safe random secret of `bytes` bytes of entropy. */
export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

/** SHA-256 hex digest: how high-entropy secrets (tokens, session ids) are stored. */
export function digest(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Constant-time string comparison. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/** Hashes a password with scrypt and a random salt: `scrypt$<salt>$<hash>`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, 32, SCRYPT);
  return `scrypt$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** Checks a password against a stored scrypt digest in constant time. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const [kind, salt, hash] = (stored ?? '').split('$');
  if (kind !== 'scrypt' || !salt || !hash) {
    // Spend the same time as a real check so unknown users cannot be told apart.
    await scryptAsync(password, Buffer.alloc(16), 32, SCRYPT);
    return false;
  }
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64'), 32, SCRYPT);
  return timingSafeEqual(actual, Buffer.from(hash, 'base64'));
}

/** Reads the instance secret key from the data directory, creating it (mode 0600) on first start. */
export function loadOrCreateSecretKey(dataDir: string): Buffer {
  const file = join(dataDir, 'secret.key');
  if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return key;
}

/** Encrypts and decrypts secrets that must be shown again (integration keys, external tokens). */
export interface Cipher {
  encrypt(plaintext: string): string;
  decrypt(ciphertext: string): string;
}

/** AES-256-GCM with the instance secret key: `v1:<iv>:<tag>:<ciphertext>` in base64. */
export function createCipher(key: Buffer): Cipher {
  if (key.length !== 32) throw new Error('The secret key must be 32 bytes');
  return {
    encrypt(plaintext) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      const ct = Buffer.concat([c.update(plaintext, 'utf8'), c.final()]);
      return `v1:${iv.toString('base64')}:${c.getAuthTag().toString('base64')}:${ct.toString('base64')}`;
    },
    decrypt(ciphertext) {
      const [v, iv, tag, ct] = ciphertext.split(':');
      if (v !== 'v1' || !iv || !tag || ct === undefined) throw new Error('Unknown ciphertext format');
      const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
      d.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([d.update(Buffer.from(ct, 'base64')), d.final()]).toString('utf8');
    },
  };
}
