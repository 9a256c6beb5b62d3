import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AvatarKind } from './avatars.js';

const KINDS: readonly AvatarKind[] = ['user', 'project', 'group'];
/** A stored name (see `storedName`): one path component, never `.` or `..`. */
const NAME = /^[^/\\\0]{1,100}$/;

/** One stored avatar, as a backup lists it. */
export interface StoredAvatar {
  readonly kind: AvatarKind;
  readonly id: number;
  readonly name: string;
  readonly file: string;
}

/**
 * Avatar files under the data directory (`<data>/uploads/<kind>/<id>/<name>`, owner-only like everything svc
 * keeps): files rather than database rows, as GitLab keeps uploads, so that serving one reads a file. The row of its
 * owner names the current file; at most one file is kept per owner.
 */
export class AvatarStore {
  constructor(private readonly root: string) {}

  private dir(kind: AvatarKind, id: number): string {
    if (!KINDS.includes(kind) || !Number.isSafeInteger(id) || id <= 0)
      throw new Error(`bad avatar owner ${kind} ${id}`);
    return join(this.root, kind, String(id));
  }

  private file(kind: AvatarKind, id: number, name: string): string {
    if (!NAME.test(name) || name === '.' || name === '..')
      throw new Error(`bad avatar name ${JSON.stringify(name)}`);
    return join(this.dir(kind, id), name);
  }

  /**
   * Stores `data` under `name` for the owner, complete before it appears under its name (written aside, then
   * renamed). The owner's previous file stays until `keepOnly` (called once the owner's row names the new one), so
   * the URL a row names always serves.
   */
  async save(kind: AvatarKind, id: number, name: string, data: Buffer): Promise<void> {
    const dir = this.dir(kind, id);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const partial = join(dir, `.partial-${randomBytes(6).toString('hex')}`);
    await writeFile(partial, data, { mode: 0o600 });
    await chmod(partial, 0o600);
    await rename(partial, this.file(kind, id, name));
  }

  /** Removes the owner's files other than `name` (replaced avatars); with null, all of them. */
  async keepOnly(kind: AvatarKind, id: number, name: string | null): Promise<void> {
    if (name === null) return this.remove(kind, id);
    const dir = this.dir(kind, id);
    for (const other of await readdir(dir).catch(() => [] as string[]))
      if (other !== name) await rm(join(dir, other), { force: true });
  }

  /** The stored bytes, or null when there is no such file. */
  async read(kind: AvatarKind, id: number, name: string): Promise<Buffer | null> {
    if (!NAME.test(name) || name === '.' || name === '..') return null;
    return readFile(this.file(kind, id, name)).catch(() => null);
  }

  /** Removes the owner's avatar files (its avatar was removed, or the owner deleted). */
  async remove(kind: AvatarKind, id: number): Promise<void> {
    await rm(this.dir(kind, id), { recursive: true, force: true });
  }

  /** Every stored avatar (for a backup). */
  async list(): Promise<StoredAvatar[]> {
    const out: StoredAvatar[] = [];
    for (const kind of KINDS) {
      const ids = await readdir(join(this.root, kind)).catch(() => [] as string[]);
      for (const id of ids.filter((x) => /^[1-9]\d{0,15}$/.test(x))) {
        for (const name of await readdir(join(this.root, kind, id)).catch(() => [] as string[])) {
          if (name.startsWith('.partial-') || !NAME.test(name)) continue;
          out.push({ kind, id: Number(id), name, file: join(this.root, kind, id, name) });
        }
      }
    }
    return out;
  }
}
