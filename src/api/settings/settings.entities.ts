import { Type } from 'typebox';
import { Bool, Int, Nullable, Str } from '../common/common.entities.js';

/** The settings' values, as `GET` shows them and `PUT` takes them (src/settings/application-settings.ts). */
const SettingValues = {
  default_project_visibility: Str,
  default_group_visibility: Str,
  default_snippet_visibility: Str,
  restricted_visibility_levels: Type.Array(Str),
  default_projects_limit: Int,
  user_defaults_to_private_profile: Bool,
  signup_enabled: Bool,
  repository_storages_weighted: Type.Record(Str, Int),
  throttle_authenticated_api_enabled: Bool,
  throttle_authenticated_api_requests_per_period: Int,
  throttle_authenticated_api_period_in_seconds: Int,
  throttle_unauthenticated_api_enabled: Bool,
  throttle_unauthenticated_api_requests_per_period: Int,
  throttle_unauthenticated_api_period_in_seconds: Int,
  rate_limiting_response_text: Nullable(Str),
  throttle_authenticated_web_enabled: Bool,
  throttle_authenticated_web_requests_per_period: Int,
  throttle_authenticated_web_period_in_seconds: Int,
  throttle_unauthenticated_web_enabled: Bool,
  throttle_unauthenticated_web_requests_per_period: Int,
  throttle_unauthenticated_web_period_in_seconds: Int,
  throttle_incident_management_notification_enabled: Bool,
  throttle_incident_management_notification_per_period: Int,
  throttle_incident_management_notification_period_in_seconds: Int,
  incident_management_notification_max_alerts: Int,
  error_tracking_rate_limit_per_minute: Int,
  error_tracking_retention_days: Int,
  allow_local_requests_from_web_hooks_and_services: Bool,
  allow_local_requests_from_system_hooks: Bool,
  outbound_local_requests_whitelist: Type.Array(Str),
  receive_max_input_size: Int,
  default_branch_protection: Int,
  default_project_creation: Int,
  password_authentication_enabled_for_web: Bool,
  after_sign_out_path: Nullable(Str),
  after_sign_up_text: Nullable(Str),
  home_page_url: Nullable(Str),
  help_page_text: Nullable(Str),
  max_attachment_size: Int,
  max_artifacts_size: Int,
  max_import_size: Int,
  max_export_size: Int,
  session_expire_delay: Int,
  user_oauth_applications: Bool,
  user_default_external: Bool,
  gravatar_enabled: Bool,
  container_registry_token_expire_delay: Int,
  plantuml_enabled: Bool,
  plantuml_url: Nullable(Str),
  terminal_max_session_time: Int,
  polling_interval_multiplier: Type.Number(),
  rsa_key_restriction: Int,
  dsa_key_restriction: Int,
  ecdsa_key_restriction: Int,
  ed25519_key_restriction: Int,
  first_day_of_week: Int,
  user_show_add_ssh_key_message: Bool,
  local_markdown_version: Int,
  domain_allowlist: Type.Array(Str),
  domain_denylist_enabled: Bool,
  domain_denylist: Type.Array(Str),
  import_sources: Type.Array(Str),
  disabled_oauth_sign_in_sources: Type.Array(Str),
  require_two_factor_authentication: Bool,
  two_factor_grace_period: Int,
  shared_runners_enabled: Bool,
  default_artifacts_expire_in: Str,
  email_author_in_body: Bool,
  html_emails_enabled: Bool,
  housekeeping_enabled: Bool,
};

export const SettingsEntity = Type.Object({
  id: Int,
  ...SettingValues,
  /** GitLab's older name of `allow_local_requests_from_web_hooks_and_services`, still shown. */
  allow_local_requests_from_hooks_and_services: Bool,
  /** Present only before 17.0 (removed then; see the deprecation catalog). */
  sign_in_text: Type.Optional(Str),
  help_text: Type.Optional(Str),
});

const VisibilityValue = Type.Union([
  Type.Literal('private'),
  Type.Literal('internal'),
  Type.Literal('public'),
]);
const Levels = (values: readonly number[]) => Type.Union(values.map((v) => Type.Literal(v)));

/**
 * `PUT /application/settings`: every setting, optional, of its type (a wrong type is Grape's 400 `x is invalid`,
 * a value outside a parameter's list `x does not have a valid value`); the rules on values are the service's.
 */
export const SettingsInput = Type.Partial(
  Type.Object({
    ...SettingValues,
    default_project_visibility: VisibilityValue,
    default_group_visibility: VisibilityValue,
    default_snippet_visibility: VisibilityValue,
    // Names or GitLab's numbers (`"public"`, `20`), read by the service.
    restricted_visibility_levels: Type.Array(Type.Union([Str, Int])),
    default_branch_protection: Levels([0, 1, 2, 3, 4]),
    default_project_creation: Levels([0, 1, 2, 3, 4]),
    allow_local_requests_from_hooks_and_services: Bool,
    sign_in_text: Str,
    help_text: Str,
  }),
);

export const AppearanceEntity = Type.Object({
  title: Str,
  description: Str,
  header_message: Str,
  footer_message: Str,
  message_background_color: Str,
  message_font_color: Str,
  email_header_and_footer_enabled: Bool,
});

export const FeatureEntity = Type.Object({
  name: Str,
  state: Str,
  gates: Type.Array(Type.Object({ key: Str, value: Type.Union([Bool, Type.Array(Str)]) })),
});

export const VersionEntity = Type.Object({
  version: Str,
  revision: Str,
  release: Str,
  enterprise: Bool,
  kas: Type.Object({
    enabled: Bool,
    externalUrl: Nullable(Str),
    externalK8sProxyUrl: Nullable(Str),
    version: Nullable(Str),
  }),
});

/** `GET /license` (admin): GitLab's `GitlabLicenseWithActiveUsers`, describing svc's tier. */
export const LicenseEntity = Type.Object({
  id: Int,
  plan: Str,
  created_at: Str,
  starts_at: Str,
  expires_at: Nullable(Str),
  historical_max: Int,
  maximum_user_count: Int,
  licensee: Type.Record(Type.String(), Str),
  add_ons: Type.Record(Type.String(), Int),
  expired: Bool,
  overage: Int,
  user_limit: Int,
  active_users: Int,
});
