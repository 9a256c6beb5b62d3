// Catalog data, one spec table per file (see ../catalog.ts); each title is the spec's Item text verbatim.
import type { DeprecationRow } from '../deprecation.js';

/** Removals in release 18.0 (all breaking). */
export const REMOVALS_18_0 = [
  {
    id: 'omniauth_directory_service_provider',
    title: 'OmniAuth provider for a directory-service product',
    area: 'auth',
    announced: '15.3',
    removal: '18.0',
    breaking: true,
    change: 'The provider gem is removed: it is little used and blocks the OmniAuth 2.0 upgrade.',
    replacement: null,
    enforced: false,
  },
  {
    id: 'protected_variables_multi_project_pipelines',
    title: 'Protected variables in multi-project pipelines',
    area: 'ci',
    announced: '16.10',
    removal: '18.0',
    breaking: true,
    change:
      'Project-level protected variables can only be forwarded to downstream pipelines in the same project (child pipelines); ' +
      'group-level protected variables only to downstream pipelines of projects in the same group as the source project.',
    replacement: null,
    enforced: false,
  },
  {
    id: 'ci_job_token_default_scope',
    title: 'Default job token (CI_JOB_TOKEN) scope',
    area: 'ci',
    announced: '15.9',
    removal: '18.0',
    breaking: true,
    change:
      'The Limit setting (named "Limit access from this project" since 16.3) is removed; the Allow access setting ' +
      '(named "Limit access to this project" since 16.3) is enabled for all projects and cannot be disabled. Other projects ' +
      'accessing a project with a job token must be in its allowlist (its owner needs Maintainer in its own project, the ' +
      'other project only Guest). A Limit setting disabled in a project cannot be re-enabled from 16.0.',
    replacement: 'the job token allowlist of the accessed project',
    enforced: false,
  },
  {
    id: 'license_scanning_report_type',
    title: 'License Scanning CI/CD artifact report type',
    area: 'security',
    announced: '16.9',
    removal: '18.0',
    breaking: true,
    change: 'Pipeline configurations using the license scanning report keyword stop working.',
    replacement: 'license scanning of CycloneDX files',
    enforced: false,
  },
  {
    id: 'iac_templates',
    title: 'Infrastructure-as-code CI/CD templates (four: the plain, latest, Base and Base latest variants)',
    area: 'ci',
    announced: '16.9',
    removal: '18.0',
    breaking: true,
    change: 'The four templates are removed; a job added in 16.9 warns users who still include them.',
    replacement: 'a CI/CD component on the hosted offering, a CI/CD template on self-managed',
    enforced: false,
  },
  {
    id: 'license_metadata_v1',
    title: 'License metadata format V1 dataset',
    area: 'security',
    announced: '16.9',
    removal: '18.0',
    breaking: true,
    change:
      'The V1 dataset is removed. Instances with the feature flag package_metadata_synchronization enabled upgrade to ' +
      '16.3 or above and remove the flag configuration.',
    replacement: null,
    enforced: false,
  },
  {
    id: 'runner_operator_registration_token',
    title: 'Runner registration token in the runner operator for the container orchestrator',
    area: 'runners',
    announced: '15.6',
    removal: '18.0',
    breaking: true,
    change:
      'The runner-registration-token parameter is removed; the arguments --locked, --access-level, --run-untagged and ' +
      '--tag-list are disabled.',
    replacement: 'runner authentication tokens',
    enforced: false,
  },
  {
    id: 'registry_tags_offset_pagination',
    title: 'Offset pagination of the List registry repository tags endpoint',
    area: 'packages',
    announced: '16.10',
    removal: '18.0',
    breaking: true,
    change: 'Offset pagination of the endpoint is removed.',
    replacement: 'keyset pagination (introduced in 16.10 on the hosted offering)',
    enforced: false,
  },
  {
    id: 'runner_registration_token_api',
    title: 'Registration tokens and server-side runner arguments in POST /api/v4/runners',
    area: 'runners',
    announced: '15.6',
    removal: '18.0',
    breaking: true,
    change:
      'Registration tokens and the server-side arguments --locked, --access-level, --run-untagged, --maximum-timeout, ' +
      '--paused, --tag-list and --maintenance-note return 410 Gone (the entry states 17.0 for the 410 and 18.0 as removal).',
    replacement: 'configure the runner in the UI and use its authentication token',
    enforced: true,
  },
  {
    id: 'runner_register_command_arguments',
    title: 'Registration tokens and server-side arguments in the runner register command',
    area: 'runners',
    announced: '15.6',
    removal: '18.0',
    breaking: true,
    change:
      'The same seven arguments (--locked, --access-level, --run-untagged, --maximum-timeout, --paused, --tag-list, ' +
      '--maintenance-note) are disabled for authentication tokens.',
    replacement: 'configure the runner in the UI and register with its authentication token',
    enforced: false,
  },
  {
    id: 'single_database',
    title: 'Running a single database',
    area: 'operations',
    announced: '16.1',
    removal: '18.0',
    breaking: true,
    change:
      'A separate database for CI features is required, preferably on the same database instance; this applies to all installation methods.',
    replacement: 'a separate CI database',
    enforced: false,
  },
  {
    id: 'certificate_based_clusters',
    title: 'Certificate-based integration with the container orchestrator (self-managed)',
    area: 'clusters',
    announced: '14.5',
    removal: '18.0',
    breaking: true,
    change:
      'The feature and its code are removed; until then the feature flag certificate_based_clusters (since 15.0, disabled ' +
      'by default) keeps it enabled.',
    replacement: 'the cluster agent',
    enforced: false,
  },
  {
    id: 'single_database_connection',
    title: 'Single database connection configuration',
    area: 'operations',
    announced: '15.9',
    removal: '18.0',
    breaking: true,
    change:
      'A configuration with only a main: section is replaced by main: and ci: sections (end of support 17.0). Affects ' +
      'installs compiled from source; other installation methods handle it from 16.0.',
    replacement: 'main: and ci: sections in the database configuration',
    enforced: false,
  },
  {
    id: 'chat_notifications_integration',
    title: 'Chat notifications integration',
    area: 'integrations',
    announced: '15.9',
    removal: '18.0',
    breaking: true,
    change: 'The chat notifications integration is removed.',
    replacement: 'the chat-platform app integration',
    enforced: false,
  },
  {
    id: 'runner_reset_registration_token_api',
    title: 'REST endpoints that reset runner registration tokens',
    area: 'runners',
    announced: '15.7',
    removal: '18.0',
    breaking: true,
    change:
      'POST /runners/reset_registration_token, POST /projects/:id/runners/reset_registration_token and ' +
      'POST /groups/:id/runners/reset_registration_token return 410 Gone.',
    replacement: 'runner authentication tokens',
    enforced: true,
  },
  {
    id: 'graphql_project_services',
    title: 'GraphQL field Project.services',
    area: 'graphql',
    announced: '15.9',
    removal: '18.0',
    breaking: true,
    change: 'The field is removed.',
    replacement: 'Project.integrations (proposed)',
    enforced: false,
  },
  {
    id: 'graphql_job_token_scope_remove_direction',
    title: 'GraphQL argument direction of mutation ciJobTokenScopeRemoveProject',
    area: 'graphql',
    announced: '16.9',
    removal: '18.0',
    breaking: true,
    change:
      'The argument defaults to INBOUND and OUTBOUND is invalid from 17.0; the argument itself is removed in 18.0.',
    replacement: null,
    enforced: false,
  },
  {
    id: 'shared_runners_registration_token_env',
    title: 'Environment variable SVC_SHARED_RUNNERS_REGISTRATION_TOKEN',
    area: 'runners',
    announced: '16.11',
    removal: '18.0',
    breaking: true,
    change: 'The environment variable is removed.',
    replacement: 'the new runner token architecture',
    enforced: true,
  },
  {
    id: 'runner_chart_registration_token',
    title: 'Runner chart parameter runnerRegistrationToken',
    area: 'runners',
    announced: '15.6',
    removal: '18.0',
    breaking: true,
    change: 'The chart parameter runnerRegistrationToken is removed.',
    replacement: 'runnerToken (new runner token architecture)',
    enforced: false,
  },
] as const satisfies readonly DeprecationRow[];
