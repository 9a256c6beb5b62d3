import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findDeprecation } from './catalog.js';
import { type CheckedFile, type Finding, formatFindings, upgradeCheck } from './upgrade-check.js';

const FIXTURES = join(import.meta.dirname, '../../test/fixtures/upgrade-check');

function load(dir: string): CheckedFile[] {
  return readdirSync(dir)
    .filter((name) => statSync(join(dir, name)).isFile())
    .sort()
    .map((name) => ({ path: name, text: readFileSync(join(dir, name), 'utf8') }));
}

const planted = load(FIXTURES);
const clean = load(join(FIXTURES, 'clean'));

/** [file, line, id, match] of every use planted in the fixtures. */
const PLANTED: readonly (readonly [string, number, string, string])[] = [
  ['config.toml', 12, 'runner_windows_cmd_shell', 'shell = "cmd"'],
  ['config.toml', 23, 'runner_termination_grace_period_seconds', 'terminationGracePeriodSeconds = 10'],
  ['deploy.sh', 5, 'shared_runners_registration_token_env', 'SVC_SHARED_RUNNERS_REGISTRATION_TOKEN'],
  ['deploy.sh', 6, 'duplicate_storage_paths', 'backup=/srv/git'],
  ['deploy.sh', 9, 'list_repos', 'svc list-repos'],
  ['deploy.sh', 10, 'list_repos', 'svc:list_repos'],
  ['deploy.sh', 15, 'runner_register_command_arguments', '--registration-token'],
  ['deploy.sh', 15, 'shared_runners_registration_token_env', 'SVC_SHARED_RUNNERS_REGISTRATION_TOKEN'],
  ['deploy.sh', 18, 'runner_register_command_arguments', '--tag-list'],
  ['deploy.sh', 19, 'runner_register_command_arguments', '--run-untagged'],
  ['deploy.sh', 20, 'runner_register_command_arguments', '--locked'],
  ['deploy.sh', 21, 'runner_register_command_arguments', '--access-level'],
  ['deploy.sh', 22, 'runner_register_command_arguments', '--maximum-timeout'],
  ['deploy.sh', 23, 'runner_register_command_arguments', '--paused'],
  ['deploy.sh', 24, 'runner_register_command_arguments', '--maintenance-note'],
  ['deploy.sh', 27, 'settings_sign_in_text_help_text', 'help_text'],
  ['deploy.sh', 27, 'settings_sign_in_text_help_text', 'sign_in_text'],
  ['deploy.sh', 29, 'runner_reset_registration_token_api', '/runners/reset_registration_token'],
  ['deploy.sh', 30, 'runner_registration_token_api', '/api/v4/runners'],
  ['deploy.sh', 31, 'jwks_endpoint', '/-/jwks'],
  ['operator.yml', 7, 'runner_operator_registration_token', 'runner-registration-token'],
  ['operator.yml', 32, 'kas_agent_ca_cert_options', '--ca-cert-file'],
  ['pipeline.yml', 3, 'license_scanning_templates', 'License-Scanning.gitlab-ci.yml'],
  ['pipeline.yml', 4, 'iac_templates', 'Terraform/Base.latest.gitlab-ci.yml'],
  ['pipeline.yml', 14, 'dast_legacy_variables', 'DAST_SCANNER_CLI_OPTIONS'],
  ['pipeline.yml', 15, 'dast_legacy_variables', 'DAST_SCANNER_LOG_CONFIGURATION'],
  ['pipeline.yml', 16, 'auto_devops_legacy_buildpacks', 'AUTO_DEVOPS_BUILD_IMAGE_CNB_ENABLED: "false"'],
  ['pipeline.yml', 19, 'iac_module_fmt_job', '.terraform-module:fmt'],
  ['pipeline.yml', 27, 'license_scanning_report_type', 'license_scanning: gl-license-scanning-report.json'],
  ['pipeline.yml', 31, 'secrets_manager_ci_job_jwt', 'secrets:'],
  ['pipeline.yml', 35, 'ci_job_jwt', 'CI_JOB_JWT_V2'],
  ['pipeline.yml', 37, 'ci_job_jwt', 'CI_JOB_JWT'],
  ['pipeline.yml', 39, 'ci_job_jwt', 'CI_JOB_JWT_V1'],
  [
    'pipeline.yml',
    41,
    'ci_lint_ref_and_sha',
    '"$CI_API_V4_URL/projects/$CI_PROJECT_ID/ci/lint?ref=main&sha=$CI_COMMIT_SHA"',
  ],
  ['svc.yml', 7, 'single_database_connection', 'main:'],
  ['svc.yml', 18, 'duplicate_storage_paths', 'path: /srv/svc/repositories/'],
  ['svc.yml', 23, 'duplicate_storage_paths', 'legacy: /srv/svc/archive'],
  [
    'svc.yml',
    25,
    'shared_runners_registration_token_env',
    'shared_runners_registration_token: "GR1348941sharedexample"',
  ],
  ['values.yaml', 10, 'kas_private_api_tls_chart_values', 'enabled: true'],
  ['values.yaml', 11, 'kas_private_api_tls_chart_values', 'secretName: kas-private-api-tls'],
  ['values.yaml', 14, 'worker_min_max_concurrency', 'WORKER_CONCURRENCY_MIN'],
  ['values.yaml', 15, 'worker_min_max_concurrency', 'WORKER_CONCURRENCY_MAX'],
  ['values.yaml', 19, 'runner_chart_registration_token', 'runnerRegistrationToken'],
  ['values.yaml', 28, 'runner_termination_grace_period_seconds', 'terminationGracePeriodSeconds = 30'],
  ['values.yaml', 33, 'kas_agent_ca_cert_options', 'caCert: |'],
  ['worker.rb', 5, 'worker_min_max_concurrency', "worker['min_concurrency']"],
  ['worker.rb', 6, 'worker_min_max_concurrency', "worker['max_concurrency']"],
  ['worker.rb', 10, 'duplicate_storage_paths', '"nfs1" => { "path" => "/var/opt/svc/git-data"'],
];

const summary = (findings: Finding[]) =>
  findings.map((f) => [f.file, f.line, f.deprecation.id, f.match] as const);
const sorted = <T extends readonly [string, number, string, string]>(rows: readonly T[]) =>
  [...rows].sort(
    (a, b) => a[0].localeCompare(b[0]) || a[1] - b[1] || a[2].localeCompare(b[2]) || a[3].localeCompare(b[3]),
  );

/** The fixture line a finding points at, to check that it really holds the match. */
function lineText(file: string, line: number): string {
  return planted.find((f) => f.path === file)!.text.split('\n')[line - 1]!;
}

describe('upgradeCheck on the planted fixtures', () => {
  const at18 = upgradeCheck(planted, '18.0');

  it('finds every planted use, with its id and line, and nothing else', () => {
    expect(sorted(summary(at18))).toEqual(sorted(PLANTED));
  });

  it('points at the line that holds the match', () => {
    for (const f of at18) {
      if (f.deprecation.id === 'duplicate_storage_paths' && f.file === 'deploy.sh') continue; // a list item
      expect(lineText(f.file, f.line), `${f.file}:${f.line}`).toContain(f.match);
    }
  });

  it('covers every kind of fixture file', () => {
    expect(new Set(at18.map((f) => f.file))).toEqual(new Set(planted.map((f) => f.path)));
  });

  it('fills the finding from the catalog', () => {
    for (const f of at18) {
      expect(f.deprecation).toBe(findDeprecation(f.deprecation.id));
      expect(f.removal).toBe(f.deprecation.removal);
      expect(f.breaking).toBe(f.deprecation.breaking);
      expect(f.replacement).toBe(f.deprecation.replacement);
      expect(f.breaksAtTarget).toBe(f.deprecation.breaking);
    }
  });

  it('marks the non-breaking 17.0 removal as not breaking the upgrade', () => {
    const grace = at18.filter((f) => f.deprecation.id === 'runner_termination_grace_period_seconds');
    expect(grace).toHaveLength(2);
    expect(grace.every((f) => !f.breaking && !f.breaksAtTarget)).toBe(true);
  });

  it('reports only dated removals, never v5-only entries', () => {
    const all = upgradeCheck(planted, '99.0');
    expect(all).toHaveLength(at18.length);
    expect(all.every((f) => /^\d+\.\d+$/.test(f.removal))).toBe(true);
  });
});

describe('upgradeCheck and the target release', () => {
  it('reports nothing before the first removal (16.11)', () => {
    expect(upgradeCheck(planted, '16.11')).toEqual([]);
  });

  it('reports 17.0 removals at 17.0 and adds exactly the 18.0 removals at 18.0', () => {
    const at17 = upgradeCheck(planted, '17.0');
    const at18 = upgradeCheck(planted, '18.0');
    expect(at17.length).toBeGreaterThan(0);
    expect(at17.every((f) => f.removal === '17.0')).toBe(true);

    const key = (f: Finding) => `${f.file}:${f.line}:${f.deprecation.id}:${f.match}`;
    const only18 = at18.filter((f) => !at17.map(key).includes(key(f)));
    expect(at17.every((f) => at18.map(key).includes(key(f)))).toBe(true);
    expect(only18.every((f) => f.removal === '18.0')).toBe(true);
    expect(new Set(only18.map((f) => f.deprecation.id))).toEqual(
      new Set([
        'iac_templates',
        'license_scanning_report_type',
        'runner_chart_registration_token',
        'runner_operator_registration_token',
        'runner_register_command_arguments',
        'runner_registration_token_api',
        'runner_reset_registration_token_api',
        'shared_runners_registration_token_env',
        'single_database_connection',
      ]),
    );
    expect(upgradeCheck(planted, '17.11')).toEqual(at17);
  });

  it('rejects a target that is not MAJOR.MINOR', () => {
    expect(() => upgradeCheck(planted, 'v5')).toThrow(/Not a release/);
  });
});

describe('upgradeCheck on the clean fixtures', () => {
  it('has a clean version of every planted file', () => {
    expect(clean.map((f) => f.path)).toEqual(planted.map((f) => f.path));
  });

  it('finds nothing', () => {
    expect(upgradeCheck(clean, '99.0')).toEqual([]);
  });
});

describe('upgradeCheck detectors in isolation', () => {
  const check = (path: string, text: string) => summary(upgradeCheck([{ path, text }], '18.0'));

  it('ignores full-line comments', () => {
    expect(check('a.sh', '# used to read CI_JOB_JWT and run svc list-repos\n')).toEqual([]);
  });

  it('reports a top-level fmt job overriding the Module template job', () => {
    const text = 'include:\n  - template: Terraform-Module.gitlab-ci.yml\nfmt:\n  allow_failure: false\n';
    expect(check('.gitlab-ci.yml', text)).toEqual([['.gitlab-ci.yml', 3, 'iac_module_fmt_job', 'fmt:']]);
    expect(check('.gitlab-ci.yml', 'fmt:\n  script: [tofu fmt]\n')).toEqual([]);
  });

  it('matches the four infrastructure-as-code templates but not the Module ones', () => {
    const text = [
      '- template: Terraform.gitlab-ci.yml',
      '- template: Terraform.latest.gitlab-ci.yml',
      '- template: Terraform/Base.gitlab-ci.yml',
      '- template: Terraform/Module-Base.gitlab-ci.yml',
      '- template: Terraform-Module.gitlab-ci.yml',
    ].join('\n');
    expect(check('ci.yml', text).map((r) => r[1])).toEqual([1, 2, 3]);
  });

  it('reports license_scanning only under reports', () => {
    const text = 'license_scanning:\n  artifacts:\n    reports:\n      license_scanning: report.json\n';
    expect(check('ci.yml', text)).toEqual([
      ['ci.yml', 4, 'license_scanning_report_type', 'license_scanning: report.json'],
    ]);
  });

  it('finds duplicate storages in a list, in [[storage]] tables and in SVC_STORAGES', () => {
    const list = 'storages:\n  - name: a\n    path: /srv/x\n  - name: b\n    path: /srv/x/.\n';
    expect(check('svc.yml', list)).toEqual([['svc.yml', 5, 'duplicate_storage_paths', 'path: /srv/x/.']]);
    const toml = '[[storage]]\nname = "a"\npath = "/srv/x"\n\n[[storage]]\nname = "b"\npath = "/srv/x"\n';
    expect(check('config.toml', toml)).toEqual([
      ['config.toml', 7, 'duplicate_storage_paths', 'path = "/srv/x"'],
    ]);
    expect(check('env', 'SVC_STORAGES=a=/srv/x,b=/srv/y\n')).toEqual([]);
  });

  it('does not report the single main: database when ci: is configured, or an unrelated main:', () => {
    expect(check('db.yml', 'production:\n  main:\n    database: a\n  ci:\n    database: b\n')).toEqual([]);
    expect(check('db.yml', 'branches:\n  main:\n    protected: true\n')).toEqual([]);
  });

  it('reports register arguments only with a registration token', () => {
    const auth = 'svc-runner register --token "$RUNNER_TOKEN" --locked\n';
    expect(check('r.sh', auth)).toEqual([]);
    const reg = 'svc-runner register -r "$TOKEN" \\\n  --locked\n';
    expect(check('r.sh', reg)).toEqual([['r.sh', 2, 'runner_register_command_arguments', '--locked']]);
  });

  it('reports sign_in_text and help_text only on the settings API', () => {
    expect(check('s.sh', 'curl -X PUT "$U/api/v4/application/settings" -d sign_in_text=hi\n')).toHaveLength(
      1,
    );
    expect(check('s.sh', 'echo help_text sign_in_text\n')).toEqual([]);
  });

  it('does not report the container orchestrator pod field terminationGracePeriodSeconds', () => {
    expect(check('pod.yml', 'spec:\n  terminationGracePeriodSeconds: 30\n')).toEqual([]);
  });

  it('reports the dotted chart value forms', () => {
    const text = 'helm upgrade svc ./chart --set svc.kas.privateApi.tls.enabled=true --set config.caCert=x\n';
    expect(check('up.sh', text).map((r) => r[2])).toEqual([
      'kas_agent_ca_cert_options',
      'kas_private_api_tls_chart_values',
    ]);
  });
});

describe('formatFindings', () => {
  it('prints a table with a summary', () => {
    const out = formatFindings(upgradeCheck(planted, '17.0'), '17.0');
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^LOCATION\s+ID\s+REMOVED\s+BREAKS\s+MATCH\s+REPLACEMENT$/);
    expect(out).toMatch(/^deploy\.sh:9\s+list_repos\s+17\.0\s+yes\s+svc list-repos\s+backup and restore$/m);
    expect(out).toMatch(/^config\.toml:23\s+runner_termination_grace_period_seconds\s+17\.0\s+no\s/m);
    expect(lines.at(-1)).toMatch(
      /^\d+ uses of features removed at or before 17\.0; \d+ break the upgrade\.$/,
    );
  });

  it('says so when there is nothing', () => {
    expect(formatFindings([], '18.0')).toBe('No uses of features removed at or before 18.0 found.\n');
  });

  it('findings serialise to JSON for --json', () => {
    const [first] = JSON.parse(JSON.stringify(upgradeCheck(planted, '17.0'))) as Finding[];
    expect(first).toMatchObject({
      file: 'config.toml',
      line: 12,
      deprecation: { id: 'runner_windows_cmd_shell' },
    });
  });
});
