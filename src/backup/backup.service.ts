import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import {
  access,
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import type { AvatarStore } from '../avatars/avatar-store.js';
import type { AvatarKind } from '../avatars/avatars.js';
import { type Cipher, createCipher, randomToken } from '../crypto.js';
import type { ContainerKind } from '../git/git.js';
import type { GitRepositoriesService } from '../git/git-repositories.service.js';
import type { WeightedStorages } from '../git/storages.js';
import { BACKUP_TABLES, type BackupRepository, type Container, LATER_TABLES } from './backup.repository.js';

const run = promisify(execFile);

const FORMAT = 1;

interface RepoEntry {
  kind: ContainerKind;
  id: number;
  storage: string;
  bundle: string | null;
  checksum: string;
  defaultBranch: string;
}

interface Manifest {
  format: number;
  createdAt: string;
  release: string;
  tables: Record<string, number>;
  repositories: RepoEntry[];
  /** sha256 of every other file in the archive, by relative path. */
  files: Record<string, string>;
  /** The size in bytes of every file in `files` (archives written before sizes were recorded have none). */
  sizes?: Record<string, number>;
}

/** Where `create` puts the instance's secret key. */
export interface CreateOptions {
  readonly progress?: Progress;
  /** The file to write the key to (mode 0600); null writes it nowhere. Default: `<output>.secret.key`. */
  readonly keyOutput?: string | null;
}

/** What restore is allowed to do. */
export interface RestoreOptions {
  readonly progress?: Progress;
  /** The backup's secret key (the file `create` wrote); without it, encrypted secrets cannot be restored. */
  readonly secretKey?: string;
  /** The most bytes the archive may unpack to (all members together); beyond it restore refuses before unpacking. */
  readonly maxBytes?: number;
}

/** The default of `RestoreOptions.maxBytes` (`svc backup restore --max-size`): 100 GiB. */
export const DEFAULT_RESTORE_MAX_BYTES = 100 * 1024 ** 3;

/** The largest manifest.json read (it is parsed in memory). */
const MANIFEST_MAX_BYTES = 64 * 1024 * 1024;

/** One member of an archive as `tar -tv` lists it. */
interface Member {
  /** tar's type letter: `-` a regular file, `d` a directory, `l` a symbolic link, `h` a hard link... */
  readonly type: string;
  readonly size: number;
  /** The name as stored (`./db/users.jsonl`), to extract it by. */
  readonly stored: string;
  /** The name relative to the archive's root (`db/users.jsonl`). */
  readonly name: string;
}

/** Reports progress of a long step (a terminal progress bar, or nothing). */
export interface Progress {
  start(label: string, total: number): void;
  tick(): void;
  stop(): void;
}

export const silentProgress: Progress = {
  start: () => undefined,
  tick: () => undefined,
  stop: () => undefined,
};

/** A backup archive that cannot be restored: nothing was changed. */
export class BackupError extends Error {}

/** A kind of encrypted secret that a restore without the backup's key could not bring back, and what it did instead. */
export interface LostSecrets {
  /** e.g. `hook secret token`. */
  readonly kind: string;
  readonly count: number;
  /** What the operator does now. */
  readonly remedy: string;
}

/** What a restore brought back. */
export type Restored = Manifest & { readonly lostSecrets: readonly LostSecrets[] };

/**
 * The columns encrypted with the instance key (AES-GCM, `v1:...`), and what a restore without that key does with a
 * value it cannot decrypt, so that nothing later reads a secret it cannot decrypt: a hook loses its token and is
 * disabled with the reason; an integration key or audit verification token is replaced by a new one; an external
 * Sentry token is removed (its project then answers "Error Tracking is not configured").
 */
const SECRETS: readonly {
  table: (typeof BACKUP_TABLES)[number];
  column: string;
  kind: string;
  remedy: string;
  replace: (row: Record<string, unknown>, cipher: Cipher) => void;
}[] = [
  {
    table: 'project_hooks',
    column: 'token_encrypted',
    kind: 'hook secret token',
    remedy: 'those hooks are disabled until their secret token is set again (edit the hook)',
    replace: (row) => {
      row.token_encrypted = null;
      row.disabled_reason =
        "its secret token was not restored (restored without the backup's secret key): set the token again";
      row.disabled_at = new Date().toISOString();
    },
  },
  {
    table: 'alert_integrations',
    column: 'token_encrypted',
    kind: 'alert integration key',
    remedy: "new keys were generated: copy each integration's key into its senders (or reset it)",
    replace: (row, cipher) => {
      row.token_encrypted = cipher.encrypt(randomBytes(16).toString('hex'));
    },
  },
  {
    table: 'error_tracking_settings',
    column: 'token_encrypted',
    kind: 'Sentry token',
    remedy: "enter the Sentry token again in those projects' error tracking settings",
    replace: (row) => {
      row.token_encrypted = null;
    },
  },
  {
    table: 'audit_event_destinations',
    column: 'verification_token',
    kind: 'audit streaming verification token',
    remedy: 'new tokens were generated: update the receivers',
    replace: (row, cipher) => {
      row.verification_token = cipher.encrypt(randomToken(18));
    },
  },
  {
    table: 'chat_integrations',
    column: 'secret_encrypted',
    kind: 'chat webhook URL or bot token',
    remedy:
      'those chat integrations are disabled until their webhook or token is set again (edit the integration)',
    replace: (row, cipher) => {
      row.secret_encrypted = cipher.encrypt('');
      row.disabled_reason =
        "its webhook URL or token was not restored (restored without the backup's secret key): set it again";
    },
  },
];

/** Reads a key file as `svc` writes it (base64 of 32 bytes); anything else is a BackupError. */
async function readKeyFile(file: string): Promise<Buffer> {
  const text = await readFile(file, 'utf8').catch((err: Error) => {
    throw new BackupError(`the secret key ${file} cannot be read: ${err.message.split('\n')[0]}`);
  });
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32 || !/^[A-Za-z0-9+/]+=*$/.test(text.trim()))
    throw new BackupError(`${file} is not a secret key written by svc backup create`);
  return key;
}

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await walk(p)));
    else out.push(p);
  }
  return out;
}

const KINDS: readonly ContainerKind[] = ['project', 'snippet', 'group'];
/** An avatar in an archive: `avatars/<kind>-<owner id>-<stored name>` (one directory, names as svc stores them). */
const AVATAR_MEMBER = /^avatars\/(user|project|group)-([1-9]\d{0,15})-([A-Za-z0-9_+-][A-Za-z0-9._+-]{0,99})$/;
const FILE_NAME = new RegExp(
  `^(db\\/[a-z_]+\\.jsonl|secret\\.key|repos\\/(project|snippet|group)-[1-9]\\d{0,15}\\.bundle|${AVATAR_MEMBER.source.slice(1, -1)})$`,
);
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) > 0;

/**
 * Reads and checks a backup manifest (the one file of an archive not covered by its checksums): every table and
 * file listed, only known files, safe names and paths, well-formed checksums. Anything else is a BackupError.
 */
export function parseManifest(text: string): Manifest {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    throw new BackupError('the archive has no readable manifest.json');
  }
  const bad = (what: string): never => {
    throw new BackupError(`the archive's manifest.json is not valid: ${what}`);
  };
  if (!isObject(m)) return bad('not an object');
  if (m.format !== FORMAT) throw new BackupError(`unsupported backup format ${JSON.stringify(m.format)}`);
  if (typeof m.createdAt !== 'string' || typeof m.release !== 'string') return bad('createdAt or release');
  if (!isObject(m.tables)) return bad('tables');
  const tables: Record<string, number> = {};
  for (const t of BACKUP_TABLES) {
    if (!(t in m.tables) && LATER_TABLES.has(t)) {
      tables[t] = 0;
      continue;
    }
    const n = m.tables[t];
    if (!Number.isSafeInteger(n) || (n as number) < 0) return bad(`tables.${t}`);
    tables[t] = n as number;
  }
  if (Object.keys(m.tables).some((t) => !(BACKUP_TABLES as readonly string[]).includes(t)))
    return bad('tables has unknown entries');
  if (!isObject(m.files)) return bad('files');
  const files: Record<string, string> = {};
  for (const [name, sum] of Object.entries(m.files)) {
    if (!FILE_NAME.test(name)) return bad(`unexpected file ${JSON.stringify(name.slice(0, 100))}`);
    if (typeof sum !== 'string' || !/^[0-9a-f]{64}$/.test(sum)) return bad(`checksum of ${name}`);
    files[name] = sum;
  }
  for (const t of BACKUP_TABLES)
    if (!(`db/${t}.jsonl` in files) && t in m.tables) return bad(`db/${t}.jsonl is not listed`);
  let sizes: Record<string, number> | undefined;
  if (m.sizes !== undefined) {
    if (!isObject(m.sizes)) return bad('sizes');
    sizes = {};
    for (const name of Object.keys(files)) {
      const n = m.sizes[name];
      if (!Number.isSafeInteger(n) || (n as number) < 0) return bad(`sizes of ${name}`);
      sizes[name] = n as number;
    }
    if (Object.keys(m.sizes).some((name) => !(name in files))) return bad('sizes has unknown entries');
  }
  if (!Array.isArray(m.repositories)) return bad('repositories');
  const seen = new Set<string>();
  const repositories: RepoEntry[] = m.repositories.map((r: unknown, i: number): RepoEntry => {
    if (!isObject(r)) return bad(`repositories[${i}]`);
    const { kind, id, storage, bundle, checksum, defaultBranch } = r;
    if (!KINDS.includes(kind as ContainerKind) || !isId(id)) return bad(`repositories[${i}] kind or id`);
    if (seen.has(`${kind}:${id}`)) return bad(`repositories[${i}] is listed twice`);
    seen.add(`${kind}:${id}`);
    if (typeof storage !== 'string' || !/^[a-z0-9][a-z0-9_-]{0,63}$/i.test(storage))
      return bad(`repositories[${i}].storage`);
    if (bundle !== null && (bundle !== `repos/${kind}-${id}.bundle` || !(bundle in files)))
      return bad(`repositories[${i}].bundle`);
    if (typeof checksum !== 'string' || !/^[0-9a-f]{40}$/.test(checksum))
      return bad(`repositories[${i}].checksum`);
    // A branch name git accepts, never an option.
    if (
      typeof defaultBranch !== 'string' ||
      !/^[^-\s\p{Cc}][^\s\p{Cc}]{0,254}$/u.test(defaultBranch) ||
      defaultBranch.includes('..')
    )
      return bad(`repositories[${i}].defaultBranch`);
    return { kind: kind as ContainerKind, id, storage, bundle, checksum, defaultBranch };
  });
  return {
    format: FORMAT,
    createdAt: m.createdAt,
    release: m.release,
    tables,
    repositories,
    files,
    ...(sizes && { sizes }),
  };
}

/** The directories an archive holds (`tar -cz -C work .`): its root, db/, repos/ and avatars/ (newer archives). */
const DIRECTORIES = new Set(['', 'db', 'repos', 'avatars']);

/**
 * Lists an archive's members without unpacking anything (`tar -tv`, numeric owners so every line has one shape).
 * A line that does not read as a member is a BackupError.
 */
async function listMembers(archive: string): Promise<Member[]> {
  let stdout: string;
  try {
    ({ stdout } = await run('tar', ['-tvzf', archive, '--numeric-owner'], { maxBuffer: 64 * 1024 * 1024 }));
  } catch (err) {
    throw new BackupError(`the archive cannot be read: ${(err as Error).message.split('\n')[0]}`);
  }
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const m = /^(.)\S*\s+\d+\/\d+\s+(\d+)\s+\S+\s+\S+\s(.+)$/.exec(line);
      if (!m)
        throw new BackupError(
          `the archive lists a member svc cannot read: ${JSON.stringify(line.slice(0, 200))}`,
        );
      const stored = m[3]!;
      const name = stored.replace(/^\.\//, '').replace(/\/$/, '');
      return {
        type: m[1]!,
        size: Number(m[2]),
        stored: stored === '.' ? './' : stored,
        name: name === '.' ? '' : name,
      };
    });
}

/**
 * Checks the member list against what a backup holds, before anything is unpacked: only svc's own file names, only
 * regular files (and its three directories), each name once, and at most `maxBytes` in all. Returns manifest.json.
 */
function checkMembers(members: readonly Member[], maxBytes: number): Member {
  const seen = new Set<string>();
  let total = 0;
  for (const m of members) {
    const shown = JSON.stringify(m.name.slice(0, 100));
    if (seen.has(m.name)) throw new BackupError(`the archive holds ${shown} twice`);
    seen.add(m.name);
    if (DIRECTORIES.has(m.name)) {
      if (m.type !== 'd') throw new BackupError(`the archive's ${m.name || '.'} is not a directory`);
      continue;
    }
    // tar lists a link as `name -> target` (`name link to target`): name the link only.
    if (m.type !== '-')
      throw new BackupError(
        `the archive's ${m.name.split(/ -> | link to /)[0]!.slice(0, 100)} is not a regular file`,
      );
    if (m.name !== 'manifest.json' && !FILE_NAME.test(m.name))
      throw new BackupError(`the archive holds an unexpected member ${shown}`);
    total += m.size;
  }
  if (total > maxBytes)
    throw new BackupError(
      `the archive unpacks to ${total} bytes, more than the limit of ${maxBytes} bytes (raise it with --max-size)`,
    );
  const manifest = members.find((m) => m.name === 'manifest.json');
  if (!manifest) throw new BackupError('the archive has no readable manifest.json');
  if (manifest.size > MANIFEST_MAX_BYTES)
    throw new BackupError(`the archive's manifest.json is larger than ${MANIFEST_MAX_BYTES} bytes`);
  return manifest;
}

/** Checks that the members are exactly the files the manifest lists, of the sizes it gives (when it gives them). */
function checkAgainstManifest(members: readonly Member[], manifest: Manifest): void {
  const files = members.filter((m) => !DIRECTORIES.has(m.name) && m.name !== 'manifest.json');
  for (const m of files) {
    if (!(m.name in manifest.files))
      throw new BackupError(
        `the archive holds an unexpected member ${JSON.stringify(m.name)}: the manifest does not list it`,
      );
    const size = manifest.sizes?.[m.name];
    if (size !== undefined && size !== m.size)
      throw new BackupError(
        `the archive is damaged: ${m.name} is ${m.size} bytes, the manifest says ${size}`,
      );
  }
  const inArchive = new Set(files.map((m) => m.name));
  for (const name of Object.keys(manifest.files))
    if (!inArchive.has(name)) throw new BackupError(`the archive is damaged: ${name} is missing`);
}

/** Whether `cipher` decrypts `value` (AES-GCM checks the key: a wrong one fails). */
function decrypts(cipher: Cipher, value: string): boolean {
  try {
    cipher.decrypt(value);
    return true;
  } catch {
    return false;
  }
}

/** Writes a file only its owner can read (0600 whatever the umask, also when it already existed). */
async function writePrivate(file: string, data: string | Buffer): Promise<void> {
  await writeFile(file, data, { mode: 0o600 });
  await chmod(file, 0o600);
}

/**
 * Packs `work` into `output` as .tar.gz, owner-only: the archive is created 0600 under a temporary name beside
 * `output` and renamed into place once complete; members are stored owner-only too.
 */
async function writeArchive(work: string, output: string): Promise<void> {
  await mkdir(dirname(output), { recursive: true, mode: 0o700 });
  const partial = `${output}.partial-${randomBytes(6).toString('hex')}`;
  try {
    const file = createWriteStream(partial, { flags: 'wx', mode: 0o600 });
    const tar = spawn('tar', ['-cz', '--mode=go-rwx', '-C', work, '.'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    tar.stderr.on('data', (d) => {
      stderr += String(d);
    });
    const exited = new Promise<number | null>((resolve, reject) => {
      tar.once('error', reject);
      tar.once('close', resolve);
    });
    await pipeline(tar.stdout, file);
    const code = await exited;
    if (code !== 0) throw new Error(`tar failed: ${stderr.trim() || `exit ${code}`}`);
    await chmod(partial, 0o600);
    await rename(partial, output);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
}

/** Unpacks `members` (all when empty) of `archive` into `work`. */
async function untar(archive: string, work: string, members: readonly string[]): Promise<void> {
  try {
    await run('tar', ['-xzf', archive, '-C', work, '--no-same-owner', '--', ...members]);
  } catch (err) {
    throw new BackupError(`the archive cannot be read: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** JSON-safe row values: Dates as ISO strings. */
const encode = (row: Record<string, unknown>) =>
  JSON.stringify(row, (_k, v) => (v instanceof Date ? v.toISOString() : v));

/**
 * Backup and restore of a whole instance (spec: the recommended way to move an instance): the database content
 * as JSON lines, every repository as a git bundle, the secret key, and a manifest of checksums. Restore checks
 * the whole archive before changing anything, works into either database and any storage layout, and verifies
 * every repository's checksum.
 */
export class BackupService {
  constructor(
    private readonly tables: BackupRepository,
    private readonly repos: GitRepositoriesService,
    private readonly dataDir: string,
    private readonly release: string,
    private readonly storagePicker: WeightedStorages,
    private readonly avatars: AvatarStore,
  ) {}

  /**
   * Writes a .tar.gz backup to `output` (mode 0600, written under a temporary name and renamed, so a failed backup
   * never leaves a truncated archive under the final name).
   *
   * Every table is read from one consistent snapshot of the database, so a backup of a running instance restores
   * cleanly: PostgreSQL reads inside one REPEATABLE READ READ ONLY transaction; SQLite reads inside one read
   * transaction on its single connection (WAL keeps that snapshot while other processes go on writing; run it
   * from another process, as the `svc backup create` command does, so the server's own writes are not queued
   * behind it). Repositories are bundled after the snapshot: they are at least as new as the rows (never older),
   * and each one's checksum is taken from its bundle, so a push during the backup cannot make it unrestorable.
   */
  async create(output: string, opts: CreateOptions = {}): Promise<Manifest> {
    const progress = opts.progress ?? silentProgress;
    const keyOutput = opts.keyOutput === undefined ? `${output}.secret.key` : opts.keyOutput;
    const work = await mkdtemp(join(tmpdir(), 'svc-backup-'));
    try {
      await chmod(work, 0o700);
      await mkdir(join(work, 'db'), { mode: 0o700 });
      await mkdir(join(work, 'repos'), { mode: 0o700 });
      await mkdir(join(work, 'avatars'), { mode: 0o700 });
      const manifest: Manifest = {
        format: FORMAT,
        createdAt: new Date().toISOString(),
        release: this.release,
        tables: {},
        repositories: [],
        files: {},
        sizes: {},
      };
      progress.start('database', BACKUP_TABLES.length);
      const containers = await this.tables.snapshot(async (snap) => {
        for (const table of BACKUP_TABLES) {
          const rows = await snap.rows(table);
          rows.sort((a, b) => Number(a.id ?? 0) - Number(b.id ?? 0));
          await writePrivate(join(work, 'db', `${table}.jsonl`), rows.map((r) => `${encode(r)}\n`).join(''));
          manifest.tables[table] = rows.length;
          progress.tick();
        }
        return snap.containers();
      });
      progress.stop();
      progress.start('repositories', containers.length);
      for (const c of containers) {
        manifest.repositories.push(await this.bundleOne(c, work));
        progress.tick();
      }
      progress.stop();
      // Avatar files (the rows name them): as they are on disk now, like the repositories.
      for (const a of await this.avatars.list()) {
        const member = `avatars/${a.kind}-${a.id}-${a.name}`;
        if (!AVATAR_MEMBER.test(member)) continue;
        await writePrivate(join(work, member), await readFile(a.file));
      }
      for (const f of await walk(work)) {
        await chmod(f, 0o600);
        manifest.files[relative(work, f)] = await sha256(f);
        manifest.sizes![relative(work, f)] = (await stat(f)).size;
      }
      await writePrivate(join(work, 'manifest.json'), JSON.stringify(manifest, null, 2));
      await writeArchive(work, output);
      // The key stays out of the archive (as GitLab keeps gitlab-secrets.json apart): whoever holds the archive
      // alone cannot decrypt the secrets in it.
      if (keyOutput !== null) await writePrivate(keyOutput, await readFile(join(this.dataDir, 'secret.key')));
      return manifest;
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  /**
   * Bundles one repository. A repository moved to another storage since the snapshot is read where it is now; its
   * checksum is computed from the bundle's refs, which are exactly what restore brings back.
   */
  private async bundleOne(c: Container, work: string): Promise<RepoEntry> {
    let path = this.repos.path(c.kind, c.id, c.storage);
    if (!(await this.repos.git.exists(path))) {
      const now = await this.tables.currentStorage(c.kind, c.id);
      if (now && now !== c.storage && this.repos.hasStorage(now)) path = this.repos.path(c.kind, c.id, now);
    }
    const file = join(work, 'repos', `${c.kind}-${c.id}.bundle`);
    const bundled = (await this.repos.git.exists(path)) && (await this.repos.git.bundle(path, file));
    return {
      ...c,
      bundle: bundled ? relative(work, file) : null,
      checksum: bundled ? await this.repos.git.bundleChecksum(file) : '0'.repeat(40),
    };
  }

  /**
   * Restores an archive into this (empty) instance. The archive is verified first; a damaged archive changes
   * nothing. Repositories land on the storage of the same name when it exists, else on one picked by weight.
   */
  async restore(archive: string, opts: RestoreOptions = {}): Promise<Restored> {
    const progress = opts.progress ?? silentProgress;
    if (await this.tables.hasUsers()) {
      throw new BackupError(
        'restore needs an empty instance: this database already has users (run restore before the first start)',
      );
    }
    const work = await mkdtemp(join(tmpdir(), 'svc-restore-'));
    const restored: string[] = [];
    const placedAvatars: { kind: AvatarKind; id: number }[] = [];
    try {
      // Nothing is unpacked before the member list and the manifest say the archive is what a backup holds: a
      // small archive must not fill the disk with members the manifest does not list or larger than it says.
      const members = await listMembers(archive);
      const manifestMember = checkMembers(members, opts.maxBytes ?? DEFAULT_RESTORE_MAX_BYTES);
      await untar(archive, work, [manifestMember.stored]);
      const text = await readFile(join(work, 'manifest.json'), 'utf8').catch(() => {
        throw new BackupError('the archive has no readable manifest.json');
      });
      const manifest = parseManifest(text);
      checkAgainstManifest(members, manifest);
      await untar(archive, work, []);
      for (const [file, expected] of Object.entries(manifest.files)) {
        const actual = await sha256(join(work, file)).catch(() => null);
        if (actual !== expected)
          throw new BackupError(
            `the archive is damaged: ${file} ${actual === null ? 'is missing' : 'does not match its checksum'}`,
          );
      }

      // Repositories first, into their final places; removed again if anything later fails.
      const storageFor = async (name: string) =>
        this.repos.hasStorage(name) ? name : await this.storagePicker.pick();
      const placed = new Map<string, string>();
      progress.start('repositories', manifest.repositories.length);
      for (const r of manifest.repositories) {
        const storage = await storageFor(r.storage);
        placed.set(`${r.kind}:${r.id}`, storage);
        const path = this.repos.path(r.kind, r.id, storage);
        if (await this.repos.git.exists(path))
          throw new BackupError(`a repository already exists at ${path}`);
        restored.push(path);
        if (r.bundle) await this.repos.git.unbundle(join(work, r.bundle), path, r.defaultBranch);
        else await this.repos.git.init(path, r.defaultBranch);
        const checksum = await this.repos.git.checksum(path);
        if (checksum !== r.checksum)
          throw new BackupError(`repository ${r.kind} ${r.id} does not match its checksum after restore`);
        progress.tick();
      }
      progress.stop();

      // Avatar files next, also removed again if anything later fails.
      for (const name of Object.keys(manifest.files)) {
        const m = AVATAR_MEMBER.exec(name);
        if (!m) continue;
        const [kind, id] = [m[1] as AvatarKind, Number(m[2])];
        placedAvatars.push({ kind, id });
        await this.avatars.save(kind, id, m[3]!, await readFile(join(work, name)));
      }

      const key = await this.restoreKey(work, manifest, opts.secretKey);
      const lost = new Map<string, number>();
      progress.start('database', BACKUP_TABLES.length);
      await this.restoreRows(work, manifest, placed, progress, (table, row) => {
        for (const secret of SECRETS) {
          if (secret.table !== table) continue;
          const value = row[secret.column];
          // Audit verification tokens from before encryption at rest are plain text: kept as they are.
          if (typeof value !== 'string' || !value.startsWith('v1:') || decrypts(key.cipher, value)) continue;
          if (key.given)
            throw new BackupError(
              `the secret key ${opts.secretKey ?? '(in the archive)'} does not decrypt the archive's ${secret.kind}s: is it this backup's key?`,
            );
          secret.replace(row, key.cipher);
          lost.set(secret.kind, (lost.get(secret.kind) ?? 0) + 1);
        }
      });
      progress.stop();
      if (key.write)
        await writePrivate(join(this.dataDir, 'secret.key'), `${key.bytes.toString('base64')}\n`);
      const lostSecrets = SECRETS.filter((x) => lost.has(x.kind)).map((x) => ({
        kind: x.kind,
        count: lost.get(x.kind)!,
        remedy: x.remedy,
      }));
      return { ...manifest, lostSecrets };
    } catch (err) {
      for (const path of restored) await rm(path, { recursive: true, force: true });
      for (const a of placedAvatars) await this.avatars.remove(a.kind, a.id);
      throw err;
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  /**
   * The key the restored instance uses: the one given (`--secret-key`), else the one an older archive carries, else
   * the target's own key (or a new one). `given` says whether it is the backup's own, so every secret must decrypt.
   */
  private async restoreKey(
    work: string,
    manifest: Manifest,
    secretKey: string | undefined,
  ): Promise<{ bytes: Buffer; cipher: Cipher; given: boolean; write: boolean }> {
    const own = join(this.dataDir, 'secret.key');
    let bytes: Buffer;
    let given = true;
    let write = true;
    if (secretKey !== undefined) bytes = await readKeyFile(secretKey);
    else if ('secret.key' in manifest.files) bytes = await readKeyFile(join(work, 'secret.key'));
    else if (
      await access(own).then(
        () => true,
        () => false,
      )
    ) {
      bytes = await readKeyFile(own);
      given = false;
      write = false;
    } else {
      bytes = randomBytes(32);
      given = false;
    }
    return { bytes, cipher: createCipher(bytes), given, write };
  }

  /** Inserts every row in one transaction: any failure (a row the database refuses) rolls all of it back. */
  private async restoreRows(
    work: string,
    manifest: Manifest,
    placed: ReadonlyMap<string, string>,
    progress: Progress,
    fix: (table: string, row: Record<string, unknown>) => void,
  ): Promise<void> {
    try {
      const moved = manifest.repositories
        .map((r) => ({ kind: r.kind, id: r.id, storage: placed.get(`${r.kind}:${r.id}`)!, was: r.storage }))
        .filter((r) => r.storage !== r.was);
      await this.tables.restore(
        async (table) => {
          // A table the archive predates (LATER_TABLES) is restored empty.
          if (!(`db/${table}.jsonl` in manifest.files)) return [];
          const text = await readFile(join(work, 'db', `${table}.jsonl`), 'utf8');
          return text
            .split('\n')
            .filter(Boolean)
            .map((l) => {
              const row = JSON.parse(l) as Record<string, unknown>;
              fix(table, row);
              return row;
            });
        },
        // Repositories restored onto another storage: record where they are.
        moved,
        () => progress.tick(),
      );
    } catch (err) {
      if (err instanceof BackupError) throw err;
      throw new BackupError(
        `the database content cannot be restored: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`,
      );
    }
  }
}
