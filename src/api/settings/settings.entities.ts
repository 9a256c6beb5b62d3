import { Type } from 'typebox';
import { Bool, Int, Nullable, Str } from '../common/common.entities.js';

export const SettingsEntity = Type.Object({
  id: Int,
  default_project_visibility: Str,
  default_group_visibility: Str,
  default_snippet_visibility: Str,
  user_defaults_to_private_profile: Bool,
  signup_enabled: Bool,
  repository_storages_weighted: Type.Record(Str, Int),
  throttle_incident_management_notification_enabled: Bool,
  throttle_incident_management_notification_per_period: Int,
  throttle_incident_management_notification_period_in_seconds: Int,
  incident_management_notification_max_alerts: Int,
  error_tracking_rate_limit_per_minute: Int,
  error_tracking_retention_days: Int,
  allow_local_requests_from_web_hooks_and_services: Bool,
  receive_max_input_size: Int,
  /** Present only before 17.0 (removed then; see the deprecation catalog). */
  sign_in_text: Type.Optional(Str),
  help_text: Type.Optional(Str),
});

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
