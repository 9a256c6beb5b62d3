import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseCidrList } from './ip-allowlist.js';
import { isRemovedAt } from './versioning/gates.js';
import { parseRelease } from './versioning/release.js';

/** A named repository storage: where bare repositories live, and its weight for new repositories. */
export interface StorageConfig {
  readonly path: string;
  readonly weight: number;
}

export type Tier = 'free' | 'premium' | 'ultimate';
export type Offering = 'self-managed' | 'hosted';

/** The validated, frozen configuration. Nothing but `loadConfig` reads `process.env`. */
export interface Config {
  readonly host: string;
  readonly port: number;
  readonly externalUrl: string;
  readonly dataDir: string;
  /** `null` means the embedded SQLite file in the data directory. */
  readonly databaseUrl: string | null;
  readonly rootPassword: string | null;
  readonly rootToken: string | null;
  readonly release: string;
  readonly tier: Tier;
  readonly offering: Offering;
  readonly storages: Readonly<Record<string, StorageConfig>>;
  readonly logLevel: string;
  /**
   * Whether every request writes a log line (GitLab keeps such a line per request in production_json.log, not on
   * the console). Off by default: only failed (5xx) and slow requests do; `SVC_LOG_LEVEL=debug` writes them too.
   */
  readonly accessLog: boolean;
  /** A request taking longer than this, in milliseconds, writes a warning line (0: never). */
  readonly slowRequestMs: number;
  /** Largest alert payload accepted, in bytes of JSON (413 beyond). */
  readonly alertPayloadLimitBytes: number;
  /** Largest artifact bundle `sentry-cli sourcemaps upload` may assemble, in bytes (its chunks are refused beyond). */
  readonly sentryUploadLimitBytes: number;
  /** Timeout of outbound HTTP requests (the external Sentry API), in milliseconds. */
  readonly outboundTimeoutMs: number;
  /** Jobs run at once (storage moves copy this many repositories in parallel; spec: JOBS=10). */
  readonly jobConcurrency: number;
  /** How long a claimed job stays with a worker that stopped sending heartbeats (crash recovery). */
  readonly jobLeaseSeconds: number;
  /** Deprecated registration token for shared runners (removed in 18.0; see versioning). */
  readonly sharedRunnersRegistrationToken: string | null;
  /**
   * Who may read `/-/metrics` (GitLab's monitoring IP whitelist): CIDR blocks, validated here (kept as text so the
   * configuration prints as JSON); loopback by default; 404 for others.
   */
  readonly metricsAllowlist: readonly string[];
  /** Failed sign-ins (web or git password) that lock an account (GitLab: 10). */
  readonly maxLoginAttempts: number;
  /** How long a locked account stays locked, in minutes (GitLab: 10). */
  readonly loginLockMinutes: number;
  /** Failed sign-ins one client address may make per window before it is refused (429) until the window ends. */
  readonly loginFailuresPerIp: number;
  /** The window of the per-address limit, in seconds. */
  readonly loginFailureWindowSeconds: number;
  /** How long a storage move waits for pushes in progress before it fails (GitLab: about 30 s). */
  readonly movePushWaitSeconds: number;
  /** A git HTTP request with no bytes in either direction for this long is ended and its git process killed. */
  readonly gitIdleTimeoutSeconds: number;
  /** `svc server` processes sharing the port (node:cluster); PostgreSQL only, SQLite stays one process. */
  readonly workers: number;
  /**
   * How long hot-path caches (notify URLs, collector keys, settings, flags) reuse a lookup. Changes apply at once
   * on every process through the invalidation bus; this bounds staleness only while a process's bus is down.
   */
  readonly cacheTtlMs: number;
  /** Where e-mail goes out (`smtp://user:pass@host:587`, `smtps://...`); null: e-mails are recorded as undeliverable. */
  readonly smtpUrl: string | null;
  /** The From address of notification e-mails. */
  readonly emailFrom: string;
  /** The Telegram Bot API's base URL (chat integrations post to `<base>/bot<token>/sendMessage`). */
  readonly telegramApiUrl: string;
}

/** A configuration problem, reported with the key that caused it. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Raw = Record<string, unknown>;

const TIERS: readonly Tier[] = ['free', 'premium', 'ultimate'];
const OFFERINGS: readonly Offering[] = ['self-managed', 'hosted'];
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
/** GitLab's `monitoring_whitelist` default: loopback only. */
const DEFAULT_METRICS_ALLOWLIST = '127.0.0.0/8,::1/128';
const STORAGE_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/i;

/** Each key: its environment variable and YAML name. */
const KEYS = {
  host: ['SVC_HOST', 'host'],
  port: ['SVC_PORT', 'port'],
  externalUrl: ['SVC_EXTERNAL_URL', 'external_url'],
  dataDir: ['SVC_DATA_DIR', 'data_dir'],
  databaseUrl: ['SVC_DATABASE_URL', 'database_url'],
  rootPassword: ['SVC_ROOT_PASSWORD', 'root_password'],
  rootToken: ['SVC_ROOT_TOKEN', 'root_token'],
  release: ['SVC_RELEASE', 'release'],
  tier: ['SVC_TIER', 'tier'],
  offering: ['SVC_OFFERING', 'offering'],
  storages: ['SVC_STORAGES', 'storages'],
  logLevel: ['SVC_LOG_LEVEL', 'log_level'],
  accessLog: ['SVC_ACCESS_LOG', 'access_log'],
  slowRequestMs: ['SVC_SLOW_REQUEST_MS', 'slow_request_ms'],
  alertPayloadLimitBytes: ['SVC_ALERT_PAYLOAD_LIMIT', 'alert_payload_limit'],
  sentryUploadLimitBytes: ['SVC_SENTRY_UPLOAD_LIMIT', 'sentry_upload_limit'],
  outboundTimeoutMs: ['SVC_OUTBOUND_TIMEOUT_MS', 'outbound_timeout_ms'],
  jobConcurrency: ['SVC_JOB_CONCURRENCY', 'job_concurrency'],
  jobLeaseSeconds: ['SVC_JOB_LEASE_SECONDS', 'job_lease_seconds'],
  sharedRunnersRegistrationToken: [
    'SVC_SHARED_RUNNERS_REGISTRATION_TOKEN',
    'shared_runners_registration_token',
  ],
  metricsAllowlist: ['SVC_METRICS_ALLOWLIST', 'metrics_allowlist'],
  maxLoginAttempts: ['SVC_MAX_LOGIN_ATTEMPTS', 'max_login_attempts'],
  loginLockMinutes: ['SVC_LOGIN_LOCK_MINUTES', 'login_lock_minutes'],
  loginFailuresPerIp: ['SVC_LOGIN_FAILURES_PER_IP', 'login_failures_per_ip'],
  loginFailureWindowSeconds: ['SVC_LOGIN_FAILURE_WINDOW_SECONDS', 'login_failure_window_seconds'],
  movePushWaitSeconds: ['SVC_MOVE_PUSH_WAIT_SECONDS', 'move_push_wait_seconds'],
  gitIdleTimeoutSeconds: ['SVC_GIT_IDLE_TIMEOUT_SECONDS', 'git_idle_timeout_seconds'],
  workers: ['SVC_WORKERS', 'workers'],
  cacheTtlMs: ['SVC_CACHE_TTL_MS', 'cache_ttl_ms'],
  smtpUrl: ['SVC_SMTP_URL', 'smtp_url'],
  emailFrom: ['SVC_EMAIL_FROM', 'email_from'],
  telegramApiUrl: ['SVC_TELEGRAM_API_URL', 'telegram_api_url'],
} as const;

type Key = keyof typeof KEYS;

/** Where a value came from, to name it in errors. */
function source(key: Key, fromEnv: boolean): string {
  return fromEnv ? KEYS[key][0] : `${KEYS[key][1]} (in the SVC_CONFIG file)`;
}

/**
 * Loads configuration from environment variables, over an optional YAML file named by `SVC_CONFIG`.
 * Throws `ConfigError` naming the bad key.
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>>, cwd = process.cwd()): Config {
  const file = readFile(env.SVC_CONFIG, cwd);
  const known = new Set(Object.values(KEYS).map(([, yamlKey]) => yamlKey));
  for (const key of Object.keys(file)) {
    if (!known.has(key as never))
      throw new ConfigError(`Unknown configuration key "${key}" in the SVC_CONFIG file`);
  }
  const get = (key: Key): { value: unknown; from: string } | undefined => {
    const [envName, yamlName] = KEYS[key];
    const fromEnv = env[envName];
    if (fromEnv !== undefined && fromEnv !== '') return { value: fromEnv, from: source(key, true) };
    if (file[yamlName] !== undefined && file[yamlName] !== null)
      return { value: file[yamlName], from: source(key, false) };
    return undefined;
  };
  const str = (key: Key): string | null => {
    const v = get(key);
    if (!v) return null;
    if (typeof v.value !== 'string' && typeof v.value !== 'number')
      throw new ConfigError(`${v.from} must be a string`);
    return String(v.value);
  };
  const oneOf = <T extends string>(key: Key, allowed: readonly T[], fallback: T): T => {
    const v = str(key);
    if (v === null) return fallback;
    if (!allowed.includes(v as T)) {
      throw new ConfigError(`${get(key)!.from} must be one of ${allowed.join(', ')} (got "${v}")`);
    }
    return v as T;
  };

  const bool = (key: Key, fallback: boolean): boolean => {
    const v = get(key);
    if (!v) return fallback;
    if (typeof v.value === 'boolean') return v.value;
    const text = String(v.value).toLowerCase();
    if (text === 'true' || text === '1') return true;
    if (text === 'false' || text === '0') return false;
    throw new ConfigError(`${v.from} must be true or false (got "${String(v.value)}")`);
  };

  const host = str('host') ?? '127.0.0.1';
  const portText = str('port') ?? '8080';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) {
    throw new ConfigError(`${get('port')!.from} must be an integer from 0 to 65535 (got "${portText}")`);
  }
  const externalUrl = parseExternalUrl(str('externalUrl'), host, port, get('externalUrl')?.from);
  const dataDir = resolve(cwd, str('dataDir') ?? './data');
  const databaseUrl = str('databaseUrl');
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError(
      `${get('databaseUrl')!.from} must be a postgres:// URL (leave it unset for the embedded SQLite database)`,
    );
  }
  const release = str('release') ?? '18.0';
  if (!/^\d{1,2}\.\d{1,2}$/.test(release)) {
    throw new ConfigError(
      `${get('release')!.from} must be a release such as 16.11, 17.0 or 18.0 (got "${release}")`,
    );
  }
  const rootPassword = str('rootPassword');
  if (rootPassword !== null && rootPassword.length < 8) {
    throw new ConfigError(`${get('rootPassword')!.from} must be at least 8 characters long`);
  }
  const rootToken = str('rootToken');
  if (rootToken !== null && (rootToken.length < 20 || /\s/.test(rootToken))) {
    throw new ConfigError(`${get('rootToken')!.from} must be at least 20 characters without spaces`);
  }

  const limitText = str('alertPayloadLimitBytes') ?? String(1024 * 1024);
  const alertPayloadLimitBytes = Number(limitText);
  if (
    !/^\d+$/.test(limitText) ||
    alertPayloadLimitBytes < 1024 ||
    alertPayloadLimitBytes > 100 * 1024 * 1024
  ) {
    throw new ConfigError(
      `${get('alertPayloadLimitBytes')!.from} must be a number of bytes from 1024 to 104857600`,
    );
  }

  const timeoutText = str('outboundTimeoutMs') ?? '10000';
  const outboundTimeoutMs = Number(timeoutText);
  if (!/^\d+$/.test(timeoutText) || outboundTimeoutMs < 100 || outboundTimeoutMs > 300_000) {
    throw new ConfigError(
      `${get('outboundTimeoutMs')!.from} must be a number of milliseconds from 100 to 300000`,
    );
  }

  const int = (key: Key, fallback: number, min: number, max: number): number => {
    const text = str(key) ?? String(fallback);
    const n = Number(text);
    if (!/^\d+$/.test(text) || n < min || n > max) {
      throw new ConfigError(`${get(key)!.from} must be an integer from ${min} to ${max} (got "${text}")`);
    }
    return n;
  };

  const sharedRunnersRegistrationToken = str('sharedRunnersRegistrationToken');
  // Spec (18.0 removals): the shared runners registration token variable is removed; the gate decides.
  if (
    sharedRunnersRegistrationToken !== null &&
    isRemovedAt(parseRelease(release), 'shared_runners_registration_token_env')
  ) {
    throw new ConfigError(
      `${get('sharedRunnersRegistrationToken')!.from} was removed in 18.0 (SVC_RELEASE is ${release}): create runners with POST /api/v4/user/runners and use their authentication tokens (glrt-) instead`,
    );
  }

  const allowlistValue = get('metricsAllowlist');
  const metricsAllowlist = (
    allowlistValue === undefined
      ? DEFAULT_METRICS_ALLOWLIST
      : Array.isArray(allowlistValue.value)
        ? allowlistValue.value.map(String).join(',')
        : String(allowlistValue.value)
  )
    .split(/[\s,]+/)
    .filter(Boolean);
  try {
    parseCidrList(metricsAllowlist.join(','));
  } catch (err) {
    throw new ConfigError(
      `${allowlistValue?.from ?? 'SVC_METRICS_ALLOWLIST'} must be a comma-separated list of CIDR blocks: ${(err as Error).message}`,
    );
  }

  const smtpUrl = str('smtpUrl');
  if (smtpUrl !== null) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(smtpUrl);
    } catch {
      parsed = null;
    }
    // The URL carries the SMTP password: never echoed in the error.
    if (!parsed || (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') || !parsed.hostname) {
      throw new ConfigError(
        `${get('smtpUrl')!.from} must be an smtp:// or smtps:// URL such as smtp://user:password@mail.example.com:587`,
      );
    }
  }
  const emailFrom = str('emailFrom') ?? `svc <svc@${new URL(externalUrl).hostname.replace(/^\[|\]$/g, '')}>`;
  if (/[\r\n]/.test(emailFrom) || !/@/.test(emailFrom)) {
    throw new ConfigError(
      `${get('emailFrom')!.from} must be an e-mail address such as svc <svc@example.com>`,
    );
  }
  const telegramApiUrl = (str('telegramApiUrl') ?? 'https://api.telegram.org').replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/.test(telegramApiUrl)) {
    throw new ConfigError(
      `${get('telegramApiUrl')!.from} must be an http(s) URL such as https://api.telegram.org`,
    );
  }

  return Object.freeze({
    host,
    port,
    externalUrl,
    dataDir,
    databaseUrl,
    rootPassword,
    rootToken,
    release,
    tier: oneOf('tier', TIERS, 'free'),
    offering: oneOf('offering', OFFERINGS, 'self-managed'),
    storages: parseStorages(get('storages'), dataDir, cwd),
    logLevel: oneOf('logLevel', LOG_LEVELS, 'info'),
    accessLog: bool('accessLog', false),
    slowRequestMs: int('slowRequestMs', 1000, 0, 3_600_000),
    alertPayloadLimitBytes,
    sentryUploadLimitBytes: int('sentryUploadLimitBytes', 64 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    outboundTimeoutMs,
    jobConcurrency: int('jobConcurrency', 10, 1, 100),
    jobLeaseSeconds: int('jobLeaseSeconds', 60, 1, 3600),
    sharedRunnersRegistrationToken,
    metricsAllowlist: Object.freeze(metricsAllowlist),
    maxLoginAttempts: int('maxLoginAttempts', 10, 1, 1000),
    loginLockMinutes: int('loginLockMinutes', 10, 1, 100_000),
    loginFailuresPerIp: int('loginFailuresPerIp', 10, 1, 100_000),
    loginFailureWindowSeconds: int('loginFailureWindowSeconds', 60, 1, 86_400),
    movePushWaitSeconds: int('movePushWaitSeconds', 30, 1, 3600),
    gitIdleTimeoutSeconds: int('gitIdleTimeoutSeconds', 300, 1, 86_400),
    workers: int('workers', 1, 1, 64),
    cacheTtlMs: int('cacheTtlMs', 1000, 0, 3_600_000),
    smtpUrl,
    emailFrom,
    telegramApiUrl,
  });
}

function readFile(path: string | undefined, cwd: string): Raw {
  if (!path) return {};
  let text: string;
  try {
    text = readFileSync(resolve(cwd, path), 'utf8');
  } catch (err) {
    throw new ConfigError(`SVC_CONFIG: cannot read ${path}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (err) {
    throw new ConfigError(`SVC_CONFIG: ${path} is not valid YAML: ${(err as Error).message}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(`SVC_CONFIG: ${path} must hold a mapping of configuration keys`);
  }
  return parsed as Raw;
}

function parseExternalUrl(value: string | null, host: string, port: number, from?: string): string {
  if (value === null) {
    const h = host.includes(':') ? `[${host}]` : host;
    return `http://${h === '0.0.0.0' || h === '[::]' ? '127.0.0.1' : h}:${port}`;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${from} must be an absolute http(s) URL (got "${value}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${from} must be an absolute http(s) URL (got "${value}")`);
  }
  return url.toString().replace(/\/+$/, '');
}

function parseStorages(
  raw: { value: unknown; from: string } | undefined,
  dataDir: string,
  cwd: string,
): Record<string, StorageConfig> {
  const storages: Record<string, StorageConfig> = {};
  if (!raw) {
    storages.default = { path: resolve(dataDir, 'repositories'), weight: 100 };
    return storages;
  }
  const add = (name: string, path: unknown, weight: unknown) => {
    if (!STORAGE_NAME.test(name)) throw new ConfigError(`${raw.from}: storage name "${name}" is not valid`);
    if (typeof path !== 'string' || path === '')
      throw new ConfigError(`${raw.from}: storage "${name}" needs a path`);
    const w = weight === undefined ? 100 : Number(weight);
    if (!Number.isInteger(w) || w < 0 || w > 100) {
      throw new ConfigError(`${raw.from}: weight of storage "${name}" must be an integer from 0 to 100`);
    }
    if (storages[name]) throw new ConfigError(`${raw.from}: storage "${name}" is configured twice`);
    storages[name] = { path: resolve(cwd, path), weight: w };
  };
  if (typeof raw.value === 'string') {
    for (const part of raw.value
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean)) {
      const eq = part.indexOf('=');
      if (eq <= 0)
        throw new ConfigError(`${raw.from} must look like "default=/srv/a,fast=/srv/b" (got "${part}")`);
      add(part.slice(0, eq), part.slice(eq + 1), undefined);
    }
  } else if (typeof raw.value === 'object' && raw.value !== null && !Array.isArray(raw.value)) {
    for (const [name, spec] of Object.entries(raw.value as Raw)) {
      if (typeof spec === 'string') add(name, spec, undefined);
      else if (typeof spec === 'object' && spec !== null) add(name, (spec as Raw).path, (spec as Raw).weight);
      else throw new ConfigError(`${raw.from}: storage "${name}" must have a path`);
    }
  } else {
    throw new ConfigError(`${raw.from} must be a mapping of storage names to {path, weight}`);
  }
  if (Object.keys(storages).length === 0) throw new ConfigError(`${raw.from} must name at least one storage`);
  // Spec (17.0 removals): several storages with the same path are an error; each needs a unique path.
  const byPath = new Map<string, string>();
  for (const [name, s] of Object.entries(storages)) {
    const other = byPath.get(s.path);
    if (other) {
      throw new ConfigError(
        `${raw.from}: storages "${other}" and "${name}" use the same path ${s.path}; each storage needs a unique path`,
      );
    }
    byPath.set(s.path, name);
  }
  return storages;
}
