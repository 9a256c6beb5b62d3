import { VISIBILITIES, type Visibility } from '../visibility.js';

/**
 * Application settings with their defaults; the API exposes exactly these keys. Most carry GitLab's name, type
 * and default (`ApplicationSettingImplementation.defaults`, `config/initializers/1_settings.rb`); docs/api.md lists
 * which of them svc enforces and which it only stores.
 */
export interface ApplicationSettings {
  default_project_visibility: Visibility;
  default_group_visibility: Visibility;
  default_snippet_visibility: Visibility;
  /** Levels only administrators may give projects, groups and snippets. */
  restricted_visibility_levels: Visibility[];
  /** The personal projects a new user may own (each user keeps the limit it was created with). */
  default_projects_limit: number;
  user_defaults_to_private_profile: boolean;
  signup_enabled: boolean;
  repository_storages_weighted: Record<string, number>;
  /** GitLab's Rack::Attack throttles of the API: per user for authenticated requests, per address otherwise. */
  throttle_authenticated_api_enabled: boolean;
  throttle_authenticated_api_requests_per_period: number;
  throttle_authenticated_api_period_in_seconds: number;
  throttle_unauthenticated_api_enabled: boolean;
  throttle_unauthenticated_api_requests_per_period: number;
  throttle_unauthenticated_api_period_in_seconds: number;
  /** The body of a throttled answer; null is GitLab's `Retry later`. */
  rate_limiting_response_text: string | null;
  throttle_authenticated_web_enabled: boolean;
  throttle_authenticated_web_requests_per_period: number;
  throttle_authenticated_web_period_in_seconds: number;
  throttle_unauthenticated_web_enabled: boolean;
  throttle_unauthenticated_web_requests_per_period: number;
  throttle_unauthenticated_web_period_in_seconds: number;
  throttle_incident_management_notification_enabled: boolean;
  throttle_incident_management_notification_per_period: number;
  throttle_incident_management_notification_period_in_seconds: number;
  /** Alerts one metrics-alerting (Alertmanager) payload may carry; 413 beyond (GitLab processes 100). */
  incident_management_notification_max_alerts: number;
  /** Events per minute per client key; 0 turns the limit off. */
  error_tracking_rate_limit_per_minute: number;
  /** Days error events are kept (spec: 90). */
  error_tracking_retention_days: number;
  /** Whether outbound requests (external Sentry) may go to loopback and private addresses. */
  allow_local_requests_from_web_hooks_and_services: boolean;
  allow_local_requests_from_system_hooks: boolean;
  outbound_local_requests_whitelist: string[];
  /** GitLab's "Maximum push size (MB)": larger git pushes are refused; 0 means unlimited (GitLab's default). */
  receive_max_input_size: number;
  default_branch_protection: number;
  default_project_creation: number;
  password_authentication_enabled_for_web: boolean;
  after_sign_out_path: string | null;
  after_sign_up_text: string | null;
  home_page_url: string | null;
  help_page_text: string | null;
  max_attachment_size: number;
  max_artifacts_size: number;
  max_import_size: number;
  max_export_size: number;
  session_expire_delay: number;
  user_oauth_applications: boolean;
  user_default_external: boolean;
  gravatar_enabled: boolean;
  container_registry_token_expire_delay: number;
  plantuml_enabled: boolean;
  plantuml_url: string | null;
  terminal_max_session_time: number;
  polling_interval_multiplier: number;
  rsa_key_restriction: number;
  dsa_key_restriction: number;
  ecdsa_key_restriction: number;
  ed25519_key_restriction: number;
  first_day_of_week: number;
  user_show_add_ssh_key_message: boolean;
  local_markdown_version: number;
  domain_allowlist: string[];
  domain_denylist_enabled: boolean;
  domain_denylist: string[];
  import_sources: string[];
  disabled_oauth_sign_in_sources: string[];
  require_two_factor_authentication: boolean;
  two_factor_grace_period: number;
  shared_runners_enabled: boolean;
  default_artifacts_expire_in: string;
  email_author_in_body: boolean;
  html_emails_enabled: boolean;
  housekeeping_enabled: boolean;
  /** Deprecated in 16.2, removed in 17.0 (the Appearance API's description replaces them). */
  sign_in_text: string;
  help_text: string;
}

export type SettingKey = keyof ApplicationSettings;

/** The keys whose defaults are svc's own or come from the instance's configuration (see `wireSettings`). */
type InstanceKey =
  | 'signup_enabled'
  | 'repository_storages_weighted'
  | 'incident_management_notification_max_alerts'
  | 'error_tracking_rate_limit_per_minute'
  | 'error_tracking_retention_days';

/** The settings whose defaults do not depend on the instance's configuration: GitLab's. */
export const GITLAB_DEFAULTS: Readonly<Omit<ApplicationSettings, InstanceKey>> = {
  default_project_visibility: 'private',
  default_group_visibility: 'private',
  default_snippet_visibility: 'private',
  restricted_visibility_levels: [],
  default_projects_limit: 100_000,
  user_defaults_to_private_profile: false,
  throttle_authenticated_api_enabled: false,
  throttle_authenticated_api_requests_per_period: 7200,
  throttle_authenticated_api_period_in_seconds: 3600,
  throttle_unauthenticated_api_enabled: false,
  throttle_unauthenticated_api_requests_per_period: 3600,
  throttle_unauthenticated_api_period_in_seconds: 3600,
  rate_limiting_response_text: null,
  throttle_authenticated_web_enabled: false,
  throttle_authenticated_web_requests_per_period: 7200,
  throttle_authenticated_web_period_in_seconds: 3600,
  throttle_unauthenticated_web_enabled: false,
  throttle_unauthenticated_web_requests_per_period: 3600,
  throttle_unauthenticated_web_period_in_seconds: 3600,
  // The per-URL alert notification throttle is off, 3600 requests per 3600 s.
  throttle_incident_management_notification_enabled: false,
  throttle_incident_management_notification_per_period: 3600,
  throttle_incident_management_notification_period_in_seconds: 3600,
  allow_local_requests_from_web_hooks_and_services: false,
  allow_local_requests_from_system_hooks: true,
  outbound_local_requests_whitelist: [],
  // No maximum push size.
  receive_max_input_size: 0,
  default_branch_protection: 2,
  // Developers and Maintainers (GitLab's DEVELOPER_MAINTAINER_PROJECT_ACCESS).
  default_project_creation: 2,
  password_authentication_enabled_for_web: true,
  after_sign_out_path: null,
  after_sign_up_text: null,
  home_page_url: null,
  help_page_text: null,
  max_attachment_size: 100,
  max_artifacts_size: 100,
  max_import_size: 0,
  max_export_size: 0,
  session_expire_delay: 10_080,
  user_oauth_applications: true,
  user_default_external: false,
  gravatar_enabled: true,
  container_registry_token_expire_delay: 5,
  plantuml_enabled: false,
  plantuml_url: null,
  terminal_max_session_time: 0,
  polling_interval_multiplier: 1,
  rsa_key_restriction: 0,
  dsa_key_restriction: 0,
  ecdsa_key_restriction: 0,
  ed25519_key_restriction: 0,
  first_day_of_week: 0,
  user_show_add_ssh_key_message: true,
  local_markdown_version: 0,
  domain_allowlist: [],
  domain_denylist_enabled: false,
  domain_denylist: [],
  import_sources: [],
  disabled_oauth_sign_in_sources: [],
  require_two_factor_authentication: false,
  two_factor_grace_period: 48,
  shared_runners_enabled: true,
  default_artifacts_expire_in: '30 days',
  email_author_in_body: false,
  html_emails_enabled: true,
  housekeeping_enabled: true,
  sign_in_text: '',
  help_text: '',
};

/** GitLab's `Gitlab::ImportSources` values. */
export const IMPORT_SOURCES = [
  'github',
  'bitbucket',
  'bitbucket_server',
  'fogbugz',
  'git',
  'gitlab_project',
  'gitea',
  'manifest',
] as const;

/** GitLab's numeric visibility levels, which `restricted_visibility_levels` also takes. */
const LEVEL_NUMBERS: Readonly<Record<string, Visibility>> = {
  '0': 'private',
  '10': 'internal',
  '20': 'public',
};

/** A visibility level given by name or by GitLab's number, or null when it is neither. */
export function visibilityLevel(v: unknown): Visibility | null {
  const s = typeof v === 'number' ? String(v) : v;
  if (typeof s !== 'string') return null;
  const name = s.trim().toLowerCase();
  if (VISIBILITIES.includes(name as Visibility)) return name as Visibility;
  return LEVEL_NUMBERS[name] ?? null;
}

type Check = (v: unknown, storages: readonly string[]) => string | null;

const MAX_INT = 2_147_483_647;
const TEXT_LIMIT = 10_000;
const LIST_LIMIT = 1000;

const bool: Check = (v) => (typeof v === 'boolean' ? null : 'must be a boolean');
const intAtLeast =
  (min: number, message = `must be greater than or equal to ${min}`): Check =>
  (v) =>
    Number.isInteger(v) && (v as number) >= min && (v as number) <= MAX_INT ? null : message;
/** GitLab's `numericality: { greater_than: 0 }` on the throttles and sizes. */
const positive = intAtLeast(1, 'must be greater than 0');
const text: Check = (v) =>
  typeof v === 'string' && v.length <= TEXT_LIMIT
    ? null
    : `must be a text of at most ${TEXT_LIMIT} characters`;
const nullableText: Check = (v) => (v === null ? null : text(v, []));
const textList: Check = (v) =>
  Array.isArray(v) && v.length <= LIST_LIMIT && v.every((x) => typeof x === 'string' && x.length <= 255)
    ? null
    : `must be a list of at most ${LIST_LIMIT} texts of at most 255 characters`;
const visibility: Check = (v) =>
  VISIBILITIES.includes(v as Visibility) ? null : 'is not included in the list';
const oneOf =
  (values: readonly number[]): Check =>
  (v) =>
    values.includes(v as number) ? null : 'is not included in the list';
/** GitLab's KeyRestrictionValidator: 0 allows every size, -1 forbids the type, else a minimum size it supports. */
const keySizes =
  (sizes: readonly number[]): Check =>
  (v) =>
    v === 0 || v === -1 || sizes.includes(v as number)
      ? null
      : `must be forbidden, allowed, or one of these sizes: ${sizes.join(', ')}`;

/** Validators per key: each returns an error message (GitLab's model validation wording) or null. */
export const VALIDATORS: { readonly [K in SettingKey]: Check } = {
  default_project_visibility: visibility,
  default_group_visibility: visibility,
  default_snippet_visibility: visibility,
  restricted_visibility_levels: (v) => {
    if (!Array.isArray(v)) return 'must be a list of visibility levels';
    const wrong = v.find((x) => !VISIBILITIES.includes(x as Visibility));
    return wrong === undefined ? null : `'${String(wrong)}' is not a valid visibility level`;
  },
  default_projects_limit: intAtLeast(0),
  user_defaults_to_private_profile: bool,
  signup_enabled: bool,
  repository_storages_weighted: (v, storages) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      return 'must be a map of storage names to weights';
    for (const [name, w] of Object.entries(v)) {
      if (!storages.includes(name)) return `storage "${name}" is not configured`;
      if (!Number.isInteger(w) || (w as number) < 0 || (w as number) > 100)
        return 'weights must be integers from 0 to 100';
    }
    return null;
  },
  throttle_authenticated_api_enabled: bool,
  throttle_authenticated_api_requests_per_period: positive,
  throttle_authenticated_api_period_in_seconds: positive,
  throttle_unauthenticated_api_enabled: bool,
  throttle_unauthenticated_api_requests_per_period: positive,
  throttle_unauthenticated_api_period_in_seconds: positive,
  // GitLab: at most 255 characters.
  rate_limiting_response_text: (v) =>
    v === null || (typeof v === 'string' && v.length <= 255)
      ? null
      : 'is too long (maximum is 255 characters)',
  throttle_authenticated_web_enabled: bool,
  throttle_authenticated_web_requests_per_period: positive,
  throttle_authenticated_web_period_in_seconds: positive,
  throttle_unauthenticated_web_enabled: bool,
  throttle_unauthenticated_web_requests_per_period: positive,
  throttle_unauthenticated_web_period_in_seconds: positive,
  throttle_incident_management_notification_enabled: bool,
  throttle_incident_management_notification_per_period: positive,
  throttle_incident_management_notification_period_in_seconds: positive,
  // At most 1000: one payload is processed in one transaction, which must stay short.
  incident_management_notification_max_alerts: (v) =>
    Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 1000
      ? null
      : 'must be an integer from 1 to 1000',
  error_tracking_rate_limit_per_minute: (v) =>
    Number.isInteger(v) && (v as number) >= 0 ? null : 'must be an integer of 0 or more',
  error_tracking_retention_days: (v) =>
    Number.isInteger(v) && (v as number) >= 1 ? null : 'must be a positive integer',
  allow_local_requests_from_web_hooks_and_services: bool,
  allow_local_requests_from_system_hooks: bool,
  outbound_local_requests_whitelist: textList,
  // Megabytes; 0 is unlimited. The cap keeps the byte count a safe integer.
  receive_max_input_size: (v) =>
    Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 1_048_576
      ? null
      : 'must be an integer from 0 to 1048576',
  default_branch_protection: oneOf([0, 1, 2, 3, 4]),
  default_project_creation: oneOf([0, 1, 2, 3, 4]),
  password_authentication_enabled_for_web: bool,
  after_sign_out_path: nullableText,
  after_sign_up_text: nullableText,
  home_page_url: nullableText,
  help_page_text: nullableText,
  max_attachment_size: positive,
  max_artifacts_size: positive,
  max_import_size: intAtLeast(0),
  max_export_size: intAtLeast(0),
  session_expire_delay: intAtLeast(0),
  user_oauth_applications: bool,
  user_default_external: bool,
  gravatar_enabled: bool,
  container_registry_token_expire_delay: positive,
  plantuml_enabled: bool,
  plantuml_url: nullableText,
  terminal_max_session_time: intAtLeast(0),
  polling_interval_multiplier: (v) =>
    typeof v === 'number' && Number.isFinite(v) && v >= 0 ? null : 'must be greater than or equal to 0',
  rsa_key_restriction: keySizes([1024, 2048, 3072, 4096]),
  dsa_key_restriction: keySizes([1024, 2048, 3072]),
  ecdsa_key_restriction: keySizes([256, 384, 521]),
  ed25519_key_restriction: keySizes([256]),
  // GitLab: Sunday (0), Monday (1) or Saturday (6).
  first_day_of_week: oneOf([0, 1, 6]),
  user_show_add_ssh_key_message: bool,
  local_markdown_version: intAtLeast(0),
  domain_allowlist: textList,
  domain_denylist_enabled: bool,
  domain_denylist: textList,
  import_sources: (v) => {
    const problem = textList(v, []);
    if (problem) return problem;
    const wrong = (v as string[]).find((s) => !(IMPORT_SOURCES as readonly string[]).includes(s));
    return wrong === undefined ? null : `'${wrong}' is not a import source`;
  },
  disabled_oauth_sign_in_sources: textList,
  require_two_factor_authentication: bool,
  two_factor_grace_period: intAtLeast(0),
  shared_runners_enabled: bool,
  default_artifacts_expire_in: text,
  email_author_in_body: bool,
  html_emails_enabled: bool,
  housekeeping_enabled: bool,
  sign_in_text: text,
  help_text: text,
};

/**
 * Rules across keys, on the settings as they would be after a change (GitLab's model validations): the default
 * project and group visibility cannot be a level only administrators may use.
 */
export function crossChecks(s: ApplicationSettings): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const key of ['default_project_visibility', 'default_group_visibility'] as const) {
    if (s.restricted_visibility_levels.includes(s[key]))
      errors[key] = ['cannot be set to a restricted visibility level'];
  }
  return errors;
}
