import type { InstancePolicy } from '../access/access.policy.js';
import type { Clock } from '../clock.js';
import { invalidFields, notFound } from '../errors.js';
import { TtlCache } from '../ttl-cache.js';
import type { User } from '../users/users.js';
import {
  type ApplicationSettings,
  crossChecks,
  type SettingKey,
  VALIDATORS,
  visibilityLevel,
} from './application-settings.js';
import type { FeatureGates } from './settings.js';
import type { SettingsRepository } from './settings.repository.js';

export type { ApplicationSettings } from './application-settings.js';

/** The Appearance API's settings (GitLab's fields that svc shows). */
export interface Appearance {
  title: string;
  description: string;
  header_message: string;
  footer_message: string;
  message_background_color: string;
  message_font_color: string;
  email_header_and_footer_enabled: boolean;
}

const DEFAULT_APPEARANCE: Appearance = {
  title: '',
  description: '',
  header_message: '',
  footer_message: '',
  message_background_color: '#E75E40',
  message_font_color: '#FFFFFF',
  email_header_and_footer_enabled: false,
};

/** A flag name: Flipper's rules, lower-case words with underscores. */
const FEATURE_NAME = /^[a-z0-9_]{1,128}$/;

/**
 * How long settings and flags read from the database are reused. Changes made through this process apply at
 * once; with several processes on one PostgreSQL database, another process's change applies within this time.
 */
const CACHE_MS = 1000;

/** Application settings and feature flags (admin-managed). */
export class SettingsService {
  private readonly settingsCache: TtlCache<'settings', ApplicationSettings>;
  private readonly flagCache: TtlCache<string, FeatureGates | undefined>;

  constructor(
    private readonly repo: SettingsRepository,
    private readonly defaults: Readonly<ApplicationSettings>,
    private readonly access: InstancePolicy<User>,
    private readonly clock: Clock,
    cacheTtlMs = CACHE_MS,
  ) {
    this.settingsCache = new TtlCache(clock, cacheTtlMs);
    this.flagCache = new TtlCache(clock, cacheTtlMs);
  }

  private readonly listeners: ((what: 'settings' | 'flags') => void | Promise<void>)[] = [];

  /** Registers a function called after settings or flags change (other processes' caches clear through it). */
  onChange(fn: (what: 'settings' | 'flags') => void | Promise<void>): void {
    this.listeners.push(fn);
  }

  private async changed(what: 'settings' | 'flags'): Promise<void> {
    if (what === 'settings') this.settingsCache.clear();
    else this.flagCache.clear();
    await Promise.all(this.listeners.map((fn) => fn(what)));
  }

  /** Forgets cached settings or flags (they changed in another process). */
  invalidate(what: 'settings' | 'flags'): void {
    if (what === 'settings') this.settingsCache.clear();
    else this.flagCache.clear();
  }

  /** The settings (cached briefly; see CACHE_MS). */
  get(): Promise<ApplicationSettings> {
    return this.settingsCache.get('settings', () => this.load());
  }

  private async load(): Promise<ApplicationSettings> {
    const stored = await this.repo.all();
    const out = { ...this.defaults } as Record<string, unknown>;
    for (const key of Object.keys(this.defaults)) if (key in stored) out[key] = stored[key];
    // Storages configured after the weights were saved take their configured weight.
    out.repository_storages_weighted = {
      ...this.defaults.repository_storages_weighted,
      ...(stored.repository_storages_weighted as Record<string, number> | undefined),
    };
    return out as unknown as ApplicationSettings;
  }

  /** The settings as an admin reads them through the API. */
  async read(actor: User | null): Promise<ApplicationSettings> {
    this.requireAdmin(actor);
    return this.get();
  }

  /**
   * Updates the given keys (admin only); unknown keys are ignored as GitLab does. Every value is checked first,
   * and the settings as they would be after the change: one wrong value changes nothing.
   */
  async update(actor: User | null, patch: Record<string, unknown>): Promise<ApplicationSettings> {
    this.requireAdmin(actor);
    const input = { ...patch };
    // GitLab's older name of the setting, still accepted.
    if (input.allow_local_requests_from_web_hooks_and_services === undefined)
      input.allow_local_requests_from_web_hooks_and_services =
        input.allow_local_requests_from_hooks_and_services;
    // Levels may be given by name or by GitLab's number (`20` is public).
    if (Array.isArray(input.restricted_visibility_levels)) {
      input.restricted_visibility_levels = [
        ...new Set(input.restricted_visibility_levels.map((l) => visibilityLevel(l) ?? l)),
      ];
    }
    const storages = Object.keys(this.defaults.repository_storages_weighted);
    const changes: Record<string, unknown> = {};
    const errors: Record<string, string[]> = {};
    for (const [key, value] of Object.entries(input)) {
      if (!(key in VALIDATORS) || value === undefined) continue;
      const problem = VALIDATORS[key as SettingKey](value, storages);
      if (problem) errors[key] = [problem];
      else changes[key] = value;
    }
    if (Object.keys(errors).length === 0) {
      Object.assign(errors, crossChecks({ ...(await this.load()), ...changes } as ApplicationSettings));
    }
    if (Object.keys(errors).length > 0) throw invalidFields(errors);
    if (Object.keys(changes).length > 0) await this.repo.put(changes);
    await this.changed('settings');
    return this.get();
  }

  // Appearance (admin)

  async appearance(actor: User | null): Promise<Appearance> {
    this.requireAdmin(actor);
    const stored = (await this.repo.all()).appearance as Partial<Appearance> | undefined;
    return { ...DEFAULT_APPEARANCE, ...stored };
  }

  async updateAppearance(actor: User | null, patch: Partial<Appearance>): Promise<Appearance> {
    const current = await this.appearance(actor);
    const next: Appearance = { ...current };
    const errors: Record<string, string[]> = {};
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined || !(key in DEFAULT_APPEARANCE)) continue;
      const expected = typeof DEFAULT_APPEARANCE[key as keyof Appearance];
      if (typeof value !== expected) errors[key] = [`must be a ${expected}`];
      else if (typeof value === 'string' && value.length > 10_000) errors[key] = ['is too long'];
      else (next as unknown as Record<string, unknown>)[key] = value;
    }
    if (Object.keys(errors).length > 0) throw invalidFields(errors);
    await this.repo.put({ appearance: next });
    return next;
  }

  // Feature flags

  private requireAdmin(actor: User | null): void {
    this.access.admin(actor);
  }

  async listFeatures(actor: User | null): Promise<FeatureGates[]> {
    this.requireAdmin(actor);
    return this.repo.features();
  }

  /** Sets a flag instance-wide (`projectId` null) or for one project. */
  async setFeature(
    actor: User | null,
    name: string,
    enabled: boolean,
    projectId: number | null,
  ): Promise<FeatureGates> {
    this.requireAdmin(actor);
    if (!FEATURE_NAME.test(name)) throw invalidFields({ name: ['is invalid'] });
    await this.repo.setGate(name, projectId, enabled, this.clock.now().toISOString());
    await this.changed('flags');
    const [f] = await this.repo.features(name);
    return f!;
  }

  async deleteFeature(actor: User | null, name: string): Promise<void> {
    this.requireAdmin(actor);
    if ((await this.repo.features(name)).length === 0) throw notFound('Feature');
    await this.repo.deleteFeature(name);
    await this.changed('flags');
  }

  /**
   * Whether a flag is on for a project: a project gate, on or off, wins over the instance-wide boolean; a flag
   * nobody has set has its default (`generic_alert_fingerprinting` is on by default, and a project can turn it off).
   */
  async isEnabled(name: string, projectId?: number, defaultValue = false): Promise<boolean> {
    const f = await this.flagCache.get(name, async () => (await this.repo.features(name))[0]);
    if (projectId !== undefined && f?.projectIds.includes(projectId)) return true;
    if (projectId !== undefined && f?.disabledProjectIds.includes(projectId)) return false;
    return f?.enabled ?? defaultValue;
  }
}
