import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({}, '/srv/svc');
    expect(c).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      externalUrl: 'http://127.0.0.1:8080',
      dataDir: '/srv/svc/data',
      databaseUrl: null,
      tier: 'free',
      offering: 'self-managed',
      storages: { default: { path: '/srv/svc/data/repositories', weight: 100 } },
    });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('reads storages from SVC_STORAGES and refuses two storages with the same path, naming both', () => {
    const c = loadConfig({ SVC_STORAGES: 'default=/srv/a,fast=/srv/b' });
    expect(Object.keys(c.storages)).toEqual(['default', 'fast']);
    expect(() => loadConfig({ SVC_STORAGES: 'default=/srv/a,fast=/srv/a/' })).toThrow(
      'SVC_STORAGES: storages "default" and "fast" use the same path /srv/a; each storage needs a unique path',
    );
  });

  it('reads a YAML file named by SVC_CONFIG; environment variables win', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-config-'));
    const file = join(dir, 'svc.yml');
    writeFileSync(
      file,
      'port: 9000\ntier: premium\nstorages:\n  a: {path: /x, weight: 0}\n  b: {path: /y}\n',
    );
    const c = loadConfig({ SVC_CONFIG: file, SVC_PORT: '9100' });
    expect(c.port).toBe(9100);
    expect(c.tier).toBe('premium');
    expect(c.storages).toEqual({ a: { path: '/x', weight: 0 }, b: { path: '/y', weight: 100 } });
    writeFileSync(file, 'storages:\n  a: {path: /x}\n  b: {path: /x}\n');
    expect(() => loadConfig({ SVC_CONFIG: file })).toThrow(/storages "a" and "b" use the same path/);
    writeFileSync(file, 'prot: 1\n');
    expect(() => loadConfig({ SVC_CONFIG: file })).toThrow(
      'Unknown configuration key "prot" in the SVC_CONFIG file',
    );
  });

  it.each([
    [{ SVC_PORT: 'http' }, /SVC_PORT must be an integer/],
    [{ SVC_TIER: 'gold' }, /SVC_TIER must be one of free, premium, ultimate/],
    [{ SVC_OFFERING: 'cloud' }, /SVC_OFFERING must be one of/],
    [{ SVC_RELEASE: 'seventeen' }, /SVC_RELEASE must be a release/],
    [{ SVC_DATABASE_URL: 'mysql://x' }, /SVC_DATABASE_URL must be a postgres:\/\/ URL/],
    [{ SVC_EXTERNAL_URL: 'ftp://x' }, /SVC_EXTERNAL_URL must be an absolute http\(s\) URL/],
    [{ SVC_ROOT_PASSWORD: 'short' }, /SVC_ROOT_PASSWORD must be at least 8/],
    [{ SVC_STORAGES: 'nopath' }, /SVC_STORAGES must look like/],
  ])('names the bad key: %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('request logging', () => {
  it('is quiet by default; SVC_ACCESS_LOG and SVC_SLOW_REQUEST_MS (or their YAML keys) change it', () => {
    expect(loadConfig({})).toMatchObject({ accessLog: false, slowRequestMs: 1000 });
    expect(loadConfig({ SVC_ACCESS_LOG: 'true', SVC_SLOW_REQUEST_MS: '0' })).toMatchObject({
      accessLog: true,
      slowRequestMs: 0,
    });
    expect(loadConfig({ SVC_ACCESS_LOG: '0' }).accessLog).toBe(false);
    const file = join(mkdtempSync(join(tmpdir(), 'svc-config-')), 'svc.yml');
    writeFileSync(file, 'access_log: true\nslow_request_ms: 250\n');
    expect(loadConfig({ SVC_CONFIG: file })).toMatchObject({ accessLog: true, slowRequestMs: 250 });
    expect(loadConfig({ SVC_CONFIG: file, SVC_ACCESS_LOG: 'false' }).accessLog).toBe(false);
    expect(() => loadConfig({ SVC_ACCESS_LOG: 'yes please' })).toThrow(
      'SVC_ACCESS_LOG must be true or false (got "yes please")',
    );
    expect(() => loadConfig({ SVC_SLOW_REQUEST_MS: '-1' })).toThrow(ConfigError);
  });
});

describe('sign-in limits and the metrics allowlist', () => {
  it('defaults to GitLab values and loopback, and prints as JSON (config check)', () => {
    const c = loadConfig({}, '/srv/svc');
    expect(c).toMatchObject({
      metricsAllowlist: ['127.0.0.0/8', '::1/128'],
      maxLoginAttempts: 10,
      loginLockMinutes: 10,
      loginFailuresPerIp: 10,
      loginFailureWindowSeconds: 60,
    });
    expect(() => JSON.stringify(c)).not.toThrow();
    expect(loadConfig({ SVC_METRICS_ALLOWLIST: '10.0.0.0/8, fd00::/8' }).metricsAllowlist).toEqual([
      '10.0.0.0/8',
      'fd00::/8',
    ]);
  });

  it.each([
    [{ SVC_METRICS_ALLOWLIST: '10.0.0.0/33' }, 'SVC_METRICS_ALLOWLIST'],
    [{ SVC_METRICS_ALLOWLIST: 'localhost' }, 'SVC_METRICS_ALLOWLIST'],
    [{ SVC_MAX_LOGIN_ATTEMPTS: '0' }, 'SVC_MAX_LOGIN_ATTEMPTS'],
    [{ SVC_LOGIN_FAILURES_PER_IP: 'many' }, 'SVC_LOGIN_FAILURES_PER_IP'],
  ])('names the bad key: %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
