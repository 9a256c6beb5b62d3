import type { Deprecation } from './deprecation.js';
import { compareRelease, parseRelease } from './release.js';

// The catalog: one entry per row of the three tables in spec/versioning-deprecations.md ("REST API v4 to v5
// changes", "Removals in release 18.0", "Removals in release 17.0") plus the deprecations that only
// spec/alerts-errors-storage.md names. `title` is the spec's Item text verbatim (catalog.test.ts checks it
// against the spec); `change` and `replacement` paraphrase the row. Product names stay neutral, as in the spec.
// Two deprecations appear in both documents (svc:list_repos and the audit event change): each is one entry,
// carrying the 17.0 table's data, with the other document's facts folded into `change`.

type Source = Deprecation['source'];
type Row = Omit<Deprecation, 'source'>;

/** REST API v4 to v5 (all breaking, no date). `announced` = reference §6 "Suggested Deprecation dates", else null. */
const V4_TO_V5: readonly Row[] = [
  {
    id: 'geo_nodes_api',
    title: 'geo_nodes endpoints',
    area: 'geo',
    // Not in the spec: GitLab deprecated the geo_nodes endpoints when nodes were renamed to sites (16.0).
    announced: '16.0',
    removal: 'v5',
    breaking: true,
    change:
      'Deprecated in v4 and removed in v5; the same functionality is available under the new name (nodes are renamed to sites).',
    replacement: 'geo_sites endpoints',
    enforced: true,
  },
  {
    id: 'mr_merged_by',
    title: 'merged_by field of the merge request API',
    area: 'api',
    announced: '14.7',
    removal: 'v5',
    breaking: true,
    change: 'The merged_by field is removed from merge requests in v5.',
    replacement: 'merge_user field',
    enforced: true,
  },
  {
    id: 'mr_merge_status',
    title: 'merge_status field of the merge request API',
    area: 'api',
    announced: '15.6',
    removal: 'v5',
    breaking: true,
    change: 'The merge_status field is removed from merge requests in v5.',
    replacement: 'detailed_merge_status field',
    enforced: true,
  },
  {
    id: 'users_private_profile_null',
    title: 'private_profile attribute of the user API',
    area: 'api',
    // Not in the spec: GitLab announced the change with issue 387005 (15.8; its code says "remove in 16.0").
    announced: '15.8',
    removal: 'v5',
    breaking: true,
    change:
      'null is no longer a valid private_profile on user create and update and results in a 400 response; only true and false are valid.',
    replacement: null,
    enforced: true,
  },
  {
    id: 'mr_changes_endpoint',
    title: 'Endpoint for the changes of a single merge request',
    area: 'api',
    announced: '15.7',
    removal: 'v5',
    breaking: true,
    change: 'The endpoint returning the changes of a single merge request is removed in v5.',
    replacement: 'list merge request diffs endpoint',
    enforced: true,
  },
  {
    id: 'managed_licenses_api',
    title: 'Managed licenses endpoint (all managed licenses of a project)',
    area: 'api',
    announced: null,
    removal: 'v5',
    breaking: true,
    change: 'The endpoint listing all managed licenses of a project is removed in v5.',
    replacement: 'License Approval policy feature',
    enforced: true,
  },
  {
    id: 'approvals_approvers_fields',
    title: 'approvers and approval_groups fields in the merge request approval configuration endpoint',
    area: 'api',
    announced: null,
    removal: 'v5',
    breaking: true,
    change: 'The fields currently return empty arrays; v5 removes them from the get-configuration endpoint.',
    replacement: 'endpoint for project-level rules of a merge request',
    enforced: true,
  },
  {
    id: 'runner_active',
    title: 'Runner property active',
    area: 'runners',
    announced: '14.8',
    removal: 'v5',
    breaking: true,
    change:
      'active is replaced by paused in the endpoints taking or returning it. In v4, from 14.8, paused can be used in place of active; ' +
      'the runner GraphQL occurrences of active are renamed to paused in 16.0; the runner release 16.0 uses paused when registering. ' +
      'Affected v5 endpoints: GET /runners; GET /runners/all; GET /runners/:id; PUT /runners/:id (form field active); ' +
      'GET /projects/:id/runners; POST /projects/:id/runners; GET /groups/:id/runners.',
    replacement: 'paused',
    enforced: true,
  },
  {
    id: 'runner_status_values',
    title: 'Runner status values',
    area: 'runners',
    announced: '14.5',
    removal: 'v5',
    breaking: true,
    change:
      'status takes only online, offline and not_connected; paused and active no longer appear in status ' +
      '(same v5 endpoints as the active property).',
    replacement: 'the boolean paused (true means paused; active means paused is false)',
    enforced: true,
  },
  {
    id: 'runner_ip_address',
    title: 'Runner ip_address',
    area: 'runners',
    announced: null,
    removal: 'v5',
    breaking: true,
    change:
      'From release 17.0 the Runners API returns an empty string in place of ip_address; v5 removes the field.',
    replacement: null,
    enforced: true,
  },
];

/** Removals in release 18.0 (all breaking). */
const REMOVALS_18_0: readonly Row[] = [
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
];

/** Removals in release 17.0 ("Breaking unless stated otherwise"; four rows are "not flagged breaking"). */
const REMOVALS_17_0: readonly Row[] = [
  {
    id: 'audit_repository_download_operation',
    title: 'Audit event type repository_download_operation',
    area: 'audit',
    announced: '16.9',
    removal: '17.0',
    breaking: true,
    change:
      'Saved today for all project downloads (public and private, alerts-errors-storage Events 2); from 17.0 it is ' +
      'triggered only for private or internal projects, and a new streaming-only type public_repository_download_operation ' +
      'covers downloads of public projects.',
    replacement: 'public_repository_download_operation (streaming only) for public projects',
    enforced: true,
  },
  {
    id: 'kas_agent_ca_cert_options',
    title: 'Cluster agent option --ca-cert-file and chart value config.caCert',
    area: 'clusters',
    announced: '16.9',
    removal: '17.0',
    breaking: true,
    change: 'The option and the chart value are renamed.',
    replacement: '--kas-ca-cert-file and config.kasCaCert',
    enforced: false,
  },
  {
    id: 'auto_devops_legacy_buildpacks',
    title: 'Auto DevOps support for a legacy buildpack system',
    area: 'ci',
    announced: '15.8',
    removal: '17.0',
    breaking: true,
    change: 'Support for the legacy buildpack system is removed; Auto Test is deprecated too.',
    replacement: 'Cloud Native Buildpacks (default for Auto Build since 14.0)',
    enforced: false,
  },
  {
    id: 'markdown_anchor_dashes',
    title: 'Autogenerated Markdown anchors',
    area: 'markdown',
    announced: '16.9',
    removal: '17.0',
    breaking: true,
    change: 'Consecutive dashes in headings are no longer collapsed to one in the generated anchors.',
    replacement: null,
    enforced: false,
  },
  {
    id: 'ci_lint_ref_and_sha',
    title: 'Use of ref and sha together in GET /projects/:id/ci/lint',
    area: 'api',
    announced: '16.8',
    removal: '17.0',
    breaking: true,
    change: 'ref and sha can no longer be used together in one call.',
    replacement: 'use only one of them',
    enforced: false,
  },
  {
    id: 'java_group_package_permissions',
    title: 'Java build-tool repository group permissions for package download',
    area: 'packages',
    announced: '16.6',
    removal: '17.0',
    breaking: true,
    change:
      'The package finder picks the most recently updated name and version in a group first, then checks permissions; ' +
      'users without permission are rejected. Introduced behind a feature flag in 16.6.',
    replacement: null,
    enforced: false,
  },
  {
    id: 'graphql_runner_projects_sort',
    title: 'GraphQL CiRunner.projects default sort',
    area: 'graphql',
    announced: '16.0',
    removal: '17.0',
    breaking: true,
    change: 'The default sort changes from id_asc to id_desc.',
    replacement: null,
    enforced: false,
  },
  {
    id: 'graphql_runner_upgrade_status_type',
    title: 'GraphQL type CiRunnerUpgradeStatusType',
    area: 'graphql',
    announced: '16.0',
    removal: '17.0',
    breaking: true,
    change: 'The type is renamed and the old-name alias removed.',
    replacement: 'CiRunnerUpgradeStatus',
    enforced: false,
  },
  {
    id: 'compliance_framework_general_settings',
    title: 'Compliance framework management in general settings',
    area: 'compliance',
    announced: '16.9',
    removal: '17.0',
    breaking: true,
    change: 'Removed from the General settings of groups and projects.',
    replacement: 'the Compliance Center',
    enforced: false,
  },
  {
    id: 'registry_oss_swift_drivers',
    title: 'Container registry storage drivers for two object storage platforms (OSS and Swift)',
    area: 'packages',
    announced: '16.6',
    removal: '17.0',
    breaking: true,
    change: 'The OSS and Swift storage drivers of the container registry are removed.',
    replacement: 'the S3 driver or an S3-compatible mode',
    enforced: false,
  },
  {
    id: 'dast_legacy_variables',
    title: 'Legacy DAST scanner variables DAST_SCANNER_CLI_OPTIONS and DAST_SCANNER_LOG_CONFIGURATION',
    area: 'security',
    announced: '15.7',
    removal: '17.0',
    breaking: true,
    change: 'The variables are removed; the browser-based analyzer has no equivalent.',
    replacement: null,
    enforced: false,
  },
  {
    id: 'dependency_proxy_token_scopes',
    title: 'Dependency Proxy token scope checks',
    area: 'packages',
    announced: '16.7',
    removal: '17.0',
    breaking: true,
    change: 'Group or personal access tokens without the required scopes fail on login and pull.',
    replacement: 'new tokens with the required scopes',
    enforced: false,
  },
  {
    id: 'sbom_dependency_scanning_properties',
    title:
      "SBOM metadata properties gitlab:dependency_scanning:input_file and gitlab:dependency_scanning:package_manager (prefix is the service's brand in the original)",
    area: 'security',
    announced: '16.9',
    removal: '17.0',
    breaking: true,
    change: 'The two properties are removed.',
    replacement:
      'the same properties with :path and :name suffixes (input_file:path, package_manager:name), added in 15.11',
    enforced: false,
  },
  {
    id: 'dependency_scanning_scala_build_tool_1_0',
    title: 'Dependency Scanning support for a Scala build tool 1.0.x',
    area: 'security',
    announced: '16.8',
    removal: '17.0',
    breaking: true,
    change: 'Dependency Scanning no longer works with the build tool 1.0.x.',
    replacement: 'the build tool 1.1.0 or later',
    enforced: false,
  },
  {
    id: 'graphql_temporary_storage_increase_fields',
    title: 'GraphQL fields isTemporaryStorageIncreaseEnabled and temporaryStorageIncreaseEndsOn',
    area: 'graphql',
    announced: '16.7',
    removal: '17.0',
    breaking: false,
    change: 'The fields are removed because the project was cancelled (not flagged breaking).',
    replacement: null,
    enforced: false,
  },
  {
    id: 'container_scanning_second_scanner',
    title: 'Vulnerability scanner for Container Scanning (second scanner)',
    area: 'security',
    announced: '16.9',
    removal: '17.0',
    breaking: true,
    change:
      'The second scanner is no longer maintained except for limited fixes and the default CS_ANALYZER_IMAGE uses the ' +
      'other scanner; the existing image is updated until 19.0, then stops working.',
    replacement: 'the default Container Scanning scanner',
    enforced: false,
  },
  {
    id: 'license_scanning_templates',
    title: 'License Scanning CI templates',
    area: 'security',
    announced: '16.9',
    removal: '17.0',
    breaking: true,
    change: 'The templates are removed; configurations including them stop working.',
    replacement: 'license scanning of CycloneDX files',
    enforced: false,
  },
  {
    id: 'scanning_scripting_language_3_9',
    title: 'Scripting-language version 3.9 in Dependency Scanning and License Scanning',
    area: 'security',
    announced: '16.9',
    removal: '17.0',
    breaking: true,
    change: 'Version 3.10 becomes the default for the job; projects on 3.9 need a compatible lockfile.',
    replacement: 'version 3.10',
    enforced: false,
  },
  {
    id: 'runner_windows_cmd_shell',
    title: 'Windows CMD shell in the runner',
    area: 'runners',
    announced: '16.1',
    removal: '17.0',
    breaking: true,
    change: 'The CMD shell is removed from the runner.',
    replacement: 'PowerShell',
    enforced: false,
  },
  {
    id: 'graphql_runner_manager_fields',
    title: 'CiRunner GraphQL fields architectureName, ipAddress, platformName, revision, version',
    area: 'graphql',
    announced: '16.2',
    removal: '17.0',
    breaking: true,
    change: 'The fields are deprecated on CiRunner; they are duplicated in CiRunnerManager.',
    replacement: 'the same fields of CiRunnerManager',
    enforced: false,
  },
  {
    id: 'iac_module_fmt_job',
    title: 'fmt job in the infrastructure-as-code Module templates (two templates: Module and Module-Base)',
    area: 'ci',
    announced: '16.9',
    removal: '17.0',
    breaking: true,
    change: 'The fmt job is removed from both templates.',
    replacement: 'add the job back manually or take it from the component',
    enforced: false,
  },
  {
    id: 'vulnerability_create_message_field',
    title:
      'Field message of the VulnerabilityCreate GraphQL mutation and of the AdditionalInfo column of the vulnerability export',
    area: 'security',
    announced: '16.1',
    removal: '17.0',
    breaking: true,
    change:
      'The message field is removed from the mutation and from the AdditionalInfo column of the export.',
    replacement: null,
    enforced: false,
  },
  {
    id: 'runner_termination_grace_period_seconds',
    title: 'Runner orchestrator executor setting terminationGracePeriodSeconds',
    area: 'runners',
    announced: '16.3',
    removal: '17.0',
    breaking: false,
    change: 'The setting reaches end of support in 17.0 (not flagged breaking).',
    replacement: 'cleanupGracePeriodSeconds and podTerminationGracePeriodSeconds',
    enforced: false,
  },
  {
    id: 'feature_flags_version_field',
    title: 'Field version in the feature flag REST API',
    area: 'api',
    announced: '16.9',
    removal: '17.0',
    breaking: true,
    change: 'The version field is removed; legacy feature flags can no longer be created.',
    replacement: null,
    enforced: false,
  },
  {
    id: 'vulnerability_status_developer_role',
    title: 'Changing vulnerability status from the Developer role',
    area: 'security',
    announced: '16.4',
    removal: '17.0',
    breaking: true,
    change: 'The Developer role can no longer change the status of vulnerabilities.',
    replacement: 'a custom role with the admin_vulnerability permission',
    enforced: false,
  },
  {
    id: 'group_owner_custom_roles_self_managed',
    title: 'Custom role creation by group Owners on self-managed',
    area: 'auth',
    announced: '16.9',
    removal: '17.0',
    breaking: true,
    change:
      'Custom role creation moves to instance level for administrators; Owners still assign roles in groups. New endpoints: ' +
      'GET /api/v4/member_roles; POST /api/v4/member_roles; DELETE /api/v4/member_roles/:id. Group Owners on the hosted ' +
      'offering are unaffected.',
    replacement: 'instance-level member roles endpoints (administrators)',
    enforced: false,
  },
  {
    id: 'graphql_vulnerability_has_solutions',
    title: 'GraphQL field Vulnerability.hasSolutions',
    area: 'graphql',
    announced: '16.3',
    removal: '17.0',
    breaking: true,
    change: 'The field is removed.',
    replacement: 'Vulnerability.hasRemediations',
    enforced: false,
  },
  {
    id: 'runner_legacy_shell_escaping',
    title: 'Runner legacy shell escaping and quoting',
    area: 'runners',
    announced: '15.11',
    removal: '17.0',
    breaking: false,
    change: 'The legacy escaping and quoting is removed (not flagged breaking).',
    replacement: null,
    enforced: false,
  },
  {
    id: 'settings_sign_in_text_help_text',
    title: 'Settings API parameters sign_in_text and help_text',
    area: 'api',
    announced: '16.2',
    removal: '17.0',
    breaking: true,
    change: 'The application settings API no longer takes or returns sign_in_text and help_text.',
    replacement: 'the description field of the Appearance API',
    enforced: true,
  },
  {
    id: 'hosted_runners_windows_server_2019',
    title: 'Windows Server 2019 for hosted runners',
    area: 'runners',
    announced: '16.9',
    removal: '17.0',
    breaking: true,
    change: 'Windows Server 2019 is deprecated for hosted runners.',
    replacement: 'Windows Server 2022',
    enforced: false,
  },
  {
    id: 'omniauth_workplace_messaging_provider',
    title: 'OmniAuth provider for a workplace-messaging platform',
    area: 'auth',
    announced: '15.10',
    removal: '17.0',
    breaking: true,
    change: 'The provider gem is removed.',
    replacement: null,
    enforced: false,
  },
  {
    id: 'duplicate_storage_paths',
    title: 'Duplicate storages in the repository-storage configuration',
    area: 'repositories',
    announced: '16.10',
    removal: '17.0',
    breaking: true,
    change: 'Configuring several storages with the same path causes an error.',
    replacement:
      'a unique path for each storage in the storage configuration section of the configuration file',
    enforced: true,
  },
  {
    id: 'file_variable_downstream_expansion',
    title: 'File type variable expansion in downstream pipelines',
    area: 'ci',
    announced: '16.6',
    removal: '17.0',
    breaking: true,
    change:
      'A variable referencing a file variable expands to the file path, not its contents, also when passed downstream.',
    replacement: null,
    enforced: false,
  },
  {
    id: 'releases_filepath_field',
    title: 'filepath field in Releases and Release Links APIs',
    area: 'api',
    announced: '15.9',
    removal: '17.0',
    breaking: true,
    change: 'The filepath field is removed from the Releases and Release Links APIs.',
    replacement: 'direct_asset_path (added in 15.9)',
    enforced: false,
  },
  {
    id: 'geo_legacy_replication_routes',
    title: 'Geo legacy replication details routes',
    area: 'geo',
    announced: '16.4',
    removal: '17.0',
    breaking: true,
    change:
      '/admin/geo/replication/designs becomes /admin/geo/sites/<site_id>/replication/design_management_repositories and ' +
      '/admin/geo/replication/projects becomes /admin/geo/sites/<site_id>/replication/projects; the legacy routes redirect ' +
      'from 16.4 to 17.0, then are removed.',
    replacement: 'the per-site replication routes under /admin/geo/sites/<site_id>/replication/',
    enforced: false,
  },
  {
    id: 'kas_private_api_tls_chart_values',
    title: 'Chart values svc.kas.privateApi.tls.enabled and svc.kas.privateApi.tls.secretName',
    area: 'clusters',
    announced: '15.8',
    removal: '17.0',
    breaking: true,
    change: 'The two chart values are removed.',
    replacement: 'global.kas.tls.*',
    enforced: false,
  },
  {
    id: 'graphql_runner_platforms_setup',
    title: 'GraphQL queries runnerPlatforms and runnerSetup',
    area: 'graphql',
    announced: '15.9',
    removal: '17.0',
    breaking: true,
    change: 'The queries are removed.',
    replacement: null,
    enforced: false,
  },
  {
    id: 'runner_slsa_v0_2_provenance',
    title: 'Runner provenance metadata statement SLSA v0.2',
    area: 'runners',
    announced: '16.8',
    removal: '17.0',
    breaking: true,
    change: 'SLSA v1.0 becomes the default provenance statement format.',
    replacement: 'SLSA v1.0 statements',
    enforced: false,
  },
  {
    id: 'graphql_dependency_proxy_total_size_in_bytes',
    title: 'GraphQL field dependencyProxyTotalSizeInBytes',
    area: 'graphql',
    announced: '16.1',
    removal: '17.0',
    breaking: true,
    change: 'The field is removed (it is limited to about 2 GB).',
    replacement: 'dependencyProxyTotalSizeBytes',
    enforced: false,
  },
  {
    id: 'graphql_registry_size_estimated',
    title: 'GraphQL field registrySizeEstimated',
    area: 'graphql',
    announced: '16.2',
    removal: '17.0',
    breaking: true,
    change: 'The field is removed.',
    replacement: 'containerRegistrySizeIsEstimated',
    enforced: false,
  },
  {
    id: 'graphql_total_weight',
    title: 'GraphQL field totalWeight',
    area: 'graphql',
    announced: '16.3',
    removal: '17.0',
    breaking: true,
    change: 'The field is removed (totalWeight is limited to 2147483647).',
    replacement: 'totalIssueWeight',
    enforced: false,
  },
  {
    id: 'graphql_network_policies',
    title: 'GraphQL resource networkPolicies',
    area: 'graphql',
    announced: '14.8',
    removal: '17.0',
    breaking: true,
    change: 'The resource is removed; it returns no data since 15.0.',
    replacement: null,
    enforced: false,
  },
  {
    id: 'graphql_runner_membership_filter',
    title: 'GraphQL type RunnerMembershipFilter',
    area: 'graphql',
    announced: '16.0',
    removal: '17.0',
    breaking: true,
    change: 'The type is renamed and the old-name alias removed.',
    replacement: 'CiRunnerMembershipFilter',
    enforced: false,
  },
  {
    id: 'graphql_shared_runners_disabled_with_override',
    title: 'GraphQL enum value DISABLED_WITH_OVERRIDE of SharedRunnersSetting',
    area: 'graphql',
    announced: '15.8',
    removal: '17.0',
    breaking: true,
    change: 'The enum value is removed.',
    replacement: 'DISABLED_AND_OVERRIDABLE',
    enforced: false,
  },
  {
    id: 'graphql_can_destroy_can_delete',
    title: 'GraphQL fields canDestroy and canDelete',
    area: 'graphql',
    announced: '16.6',
    removal: '17.0',
    breaking: true,
    change:
      'canDestroy (Package, PackageBase, PackageDetailsType) and canDelete (ContainerRepository, ' +
      'ContainerRepositoryDetails, ContainerRepositoryTag) are removed.',
    replacement: 'the UserPermissions field (added in 16.6 under Types::PermissionTypes::Package)',
    enforced: false,
  },
  {
    id: 'secrets_manager_ci_job_jwt',
    title: 'Secrets-manager integration using CI_JOB_JWT by default',
    area: 'ci',
    announced: '15.9',
    removal: '17.0',
    breaking: true,
    change:
      'Jobs using the secrets keyword for the external secrets manager must use id_tokens with the aud claim set and the ' +
      'bound audience prefixed with https://. In 15.9 to 15.11 the "Limit JSON Web Token (JWT) access" setting hides the ' +
      'old tokens; from 16.0 the setting is removed, jobs using id_tokens get no CI_JOB_JWT* tokens, other jobs keep them until 17.0.',
    replacement: 'id_tokens with the aud claim',
    enforced: false,
  },
  {
    id: 'auto_devops_builder_image',
    title: 'Builder image in Auto DevOps build',
    area: 'ci',
    announced: '16.9',
    removal: '17.0',
    breaking: true,
    change:
      'The builder image upgrades from version 20 to 22; AUTO_DEVOPS_BUILD_IMAGE_CNB_BUILDER selects the builder (set it ' +
      'to the version 22 image to test, or to the version 20 image to keep it).',
    replacement: 'the version 22 builder image',
    enforced: false,
  },
  {
    id: 'registry_custom_tag_delete_endpoint',
    title: 'Container registry custom tag delete endpoint DELETE /v2/<name>/tags/reference/<tag>',
    area: 'packages',
    announced: '16.4',
    removal: '17.0',
    breaking: true,
    change: 'The custom endpoint of the internal registry API is removed.',
    replacement: 'the standard DELETE /v2/<name>/manifests/<tag>',
    enforced: false,
  },
  {
    id: 'jwks_endpoint',
    title: 'Endpoint /-/jwks',
    area: 'auth',
    announced: '16.7',
    removal: '17.0',
    breaking: true,
    change: 'The endpoint is removed.',
    replacement: '/oauth/discovery/keys',
    enforced: false,
  },
  {
    id: 'geo_prometheus_metrics',
    title: 'Geo Prometheus-format metrics',
    area: 'geo',
    announced: '16.6',
    removal: '17.0',
    breaking: true,
    change:
      'geo_repositories_{synced, failed, checksummed, checksum_failed, verified, verification_failed} are replaced by the ' +
      'geo_project_repositories_* metrics of the same suffix (available from 16.3.0); geo_repositories_checksum_mismatch ' +
      'and geo_repositories_retrying_verification have no replacement.',
    replacement: 'geo_project_repositories_* metrics',
    enforced: false,
  },
  {
    id: 'license_list',
    title: 'License List',
    area: 'security',
    announced: '16.8',
    removal: '17.0',
    breaking: true,
    change: 'The License List is removed.',
    replacement: 'the project and group Dependency List filtered by license',
    enforced: false,
  },
  {
    id: 'license_scanning_scala_build_tool_1_0',
    title: 'License Scanning support for a Scala build tool 1.0.x',
    area: 'security',
    announced: '16.8',
    removal: '17.0',
    breaking: true,
    change: 'License Scanning support for the build tool 1.0.x is removed.',
    replacement: null,
    enforced: false,
  },
  {
    id: 'linux_packages_distribution_18_04',
    title: 'Linux packages for a Linux distribution release 18.04',
    area: 'operations',
    announced: '16.8',
    removal: '17.0',
    breaking: false,
    change: 'Packages are not provided for the 18.04 release from 17.0 (not flagged breaking).',
    replacement: 'the distribution release 20.04 or 22.04',
    enforced: false,
  },
  {
    id: 'list_repos',
    title: 'Rake task svc:list_repos',
    area: 'repositories',
    announced: '16.7',
    removal: '17.0',
    breaking: true,
    change:
      'The task (svc list-repos in svc) is removed. alerts-errors-storage.md (migration rule 7) already calls it deprecated ' +
      'in 16.4 and not working, with removal planned for 17.0.',
    replacement: 'backup and restore',
    enforced: true,
  },
  {
    id: 'packages_settings_maintainer_role',
    title: 'Maintainer role changing Packages and registries settings of a group via GraphQL',
    area: 'packages',
    announced: '15.8',
    removal: '17.0',
    breaking: true,
    change: 'The Owner role is required to change the settings, in the UI and through GraphQL.',
    replacement: 'the Owner role',
    enforced: false,
  },
  {
    id: 'java_build_tool_below_3_8_8',
    title: 'Java build tool versions below 3.8.8 in Dependency Scanning and License Scanning',
    area: 'security',
    announced: '16.9',
    removal: '17.0',
    breaking: true,
    change: 'Build tool versions below 3.8.8 are dropped.',
    replacement: 'version 3.8.8 or greater',
    enforced: false,
  },
  {
    id: 'worker_min_max_concurrency',
    title: "Background-processor settings worker['min_concurrency'] and worker['max_concurrency']",
    area: 'operations',
    announced: '16.9',
    removal: '17.0',
    breaking: true,
    change:
      'The settings are removed for Linux package installs. For chart installs (deprecated from 16.10), WORKER_CONCURRENCY_MIN ' +
      'and WORKER_CONCURRENCY_MAX passed as extraEnv are replaced by the concurrency option.',
    replacement: "worker['concurrency'] (chart: the concurrency option)",
    enforced: false,
  },
  {
    id: 'users_offset_pagination',
    title: 'Offset pagination on the /users REST endpoint',
    area: 'api',
    announced: '16.5',
    removal: '17.0',
    breaking: true,
    change: 'Offset pagination on GET /users is removed.',
    replacement: 'keyset pagination',
    enforced: true,
  },
  {
    id: 'ci_job_jwt',
    title: 'Tokens CI_JOB_JWT, CI_JOB_JWT_V1, CI_JOB_JWT_V2',
    area: 'ci',
    announced: '15.9',
    removal: '17.0',
    breaking: true,
    change: 'The tokens are removed from jobs.',
    replacement:
      'id_tokens (OIDC compliant, introduced in 15.7; the iss claim uses the fully qualified domain name)',
    enforced: false,
  },
  {
    id: 'omniauth_social_network_provider',
    title: 'OmniAuth provider for a social network',
    area: 'auth',
    announced: '16.2',
    removal: '17.0',
    breaking: true,
    change: 'Support for the provider is removed.',
    replacement: null,
    enforced: false,
  },
  {
    id: 'packages_pipelines_attribute',
    title: 'pipelines attribute in GET /api/v4/projects/:id/packages response',
    area: 'api',
    announced: '14.5',
    removal: '17.0',
    breaking: true,
    change: 'The pipelines attribute is removed from the response.',
    replacement: null,
    enforced: false,
  },
  {
    id: 'graphql_project_fingerprint',
    title: 'GraphQL field projectFingerprint of PipelineSecurityReportFinding',
    area: 'graphql',
    announced: '15.1',
    removal: '17.0',
    breaking: true,
    change: 'The field is removed (from 16.1 it returns the uuid value).',
    replacement: 'uuid',
    enforced: false,
  },
  {
    id: 'database_major_version_13',
    title: 'Relational database major version 13',
    area: 'operations',
    announced: '16.0',
    removal: '17.0',
    breaking: true,
    change:
      'Version 14 becomes the minimum required; version 13 is supported for the whole 16 release cycle.',
    replacement: 'version 14 or later',
    enforced: false,
  },
];

/**
 * Deprecations only alerts-errors-storage.md names. The spec does not call either removal breaking, so neither is
 * flagged; neither has a 17.0/18.0 table row.
 */
const ALERTS_ERRORS_STORAGE: readonly Row[] = [
  {
    id: 'oncall_link',
    title: "Direct link to the external on-call tool's alert list",
    area: 'alerts',
    announced: '13.8',
    removal: null,
    breaking: false,
    change:
      "The direct link from the external on-call tool integration to the tool's alert list is deprecated from 13.8; " +
      'no removal release is given.',
    replacement: null,
    enforced: true,
  },
  {
    id: 'prometheus_api_url_features',
    title: 'Features using the API base URL of the metrics-alerting receiver',
    area: 'alerts',
    announced: null,
    removal: '16.0',
    breaking: false,
    change:
      'The API base URL stays required on creation of a metrics-alerting receiver (a placeholder URL is acceptable), ' +
      'but the features that use it are deprecated and scheduled for removal in 16.0.',
    replacement: null,
    enforced: true,
  },
];

const withSource = (rows: readonly Row[], source: Source): Deprecation[] =>
  rows.map((r) => Object.freeze({ ...r, source }));

/** Every deprecation svc knows, in spec order: v4-to-v5, 18.0, 17.0, then alerts-errors-storage. */
export const CATALOG: readonly Deprecation[] = Object.freeze([
  ...withSource(V4_TO_V5, 'v4-to-v5'),
  ...withSource(REMOVALS_18_0, 'removals-18.0'),
  ...withSource(REMOVALS_17_0, 'removals-17.0'),
  ...withSource(ALERTS_ERRORS_STORAGE, 'alerts-errors-storage'),
]);

const BY_ID = new Map(CATALOG.map((d) => [d.id, d]));

/** The catalog entry with this id; throws on an unknown id (a typo must fail loudly, not silently un-gate). */
export function findDeprecation(id: string): Deprecation {
  const d = BY_ID.get(id);
  if (!d) throw new Error(`Unknown deprecation id: ${id}`);
  return d;
}

/** Filter for {@link filterCatalog}; every given field must match. */
export interface CatalogFilter {
  /** Entries removed at or before this release (`17.0`); excludes v5-only and unscheduled entries. */
  readonly release?: string;
  readonly breaking?: boolean;
  readonly area?: string;
  readonly source?: Deprecation['source'];
}

/** Catalog entries matching every given field of `filter`, in catalog order. */
export function filterCatalog(filter: CatalogFilter = {}): Deprecation[] {
  const release = filter.release === undefined ? null : parseRelease(filter.release);
  return CATALOG.filter((d) => {
    if (filter.breaking !== undefined && d.breaking !== filter.breaking) return false;
    if (filter.area !== undefined && d.area !== filter.area) return false;
    if (filter.source !== undefined && d.source !== filter.source) return false;
    if (release) {
      if (!isDatedRelease(d.removal)) return false;
      if (compareRelease(parseRelease(d.removal), release) > 0) return false;
    }
    return true;
  });
}

/** Whether `removal` is a `MAJOR.MINOR` release (not `v5`, not null). */
export function isDatedRelease(removal: string | null): removal is string {
  return removal !== null && /^\d+\.\d+$/.test(removal);
}

/**
 * Release days of every release the catalog names. The spec gives no dates; up to 16.5 this uses the reference's
 * convention (reference §6: "release day = the 22nd"), from 16.6 the actual release Thursdays. catalog.test.ts
 * checks that every announced and removal release of the catalog is listed.
 */
export const RELEASE_DATES: Readonly<Record<string, string>> = Object.freeze({
  '13.8': '2021-01-22',
  '14.5': '2021-11-22',
  '14.7': '2022-01-22',
  '14.8': '2022-02-22',
  '15.1': '2022-06-22',
  '15.3': '2022-08-22',
  '15.6': '2022-11-22',
  '15.7': '2022-12-22',
  '15.8': '2023-01-22',
  '15.9': '2023-02-22',
  '15.10': '2023-03-22',
  '15.11': '2023-04-22',
  '16.0': '2023-05-22',
  '16.1': '2023-06-22',
  '16.2': '2023-07-22',
  '16.3': '2023-08-22',
  '16.4': '2023-09-22',
  '16.5': '2023-10-22',
  '16.6': '2023-11-16',
  '16.7': '2023-12-21',
  '16.8': '2024-01-18',
  '16.9': '2024-02-15',
  '16.10': '2024-03-21',
  '16.11': '2024-04-18',
  '17.0': '2024-05-16',
  '18.0': '2025-05-15',
});

/** Midnight UTC of the release day of `release`; throws for a release missing from {@link RELEASE_DATES}. */
export function releaseDate(release: string): Date {
  const day = RELEASE_DATES[release];
  if (!day) throw new Error(`No release date known for ${release}`);
  return new Date(`${day}T00:00:00Z`);
}

/** Unix seconds of the announcement release day (for RFC 9745 `Deprecation: @<seconds>`), or null when not given. */
export function announcedAt(d: Deprecation): number | null {
  if (d.announced === null) return null;
  return Math.floor(releaseDate(d.announced).getTime() / 1000);
}

/** Day of the removal release (for RFC 8594 `Sunset`), or null for v5-only or unscheduled removals. */
export function sunsetAt(d: Deprecation): Date | null {
  return isDatedRelease(d.removal) ? releaseDate(d.removal) : null;
}
