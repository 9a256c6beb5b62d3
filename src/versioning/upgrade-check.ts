import { type DeprecationId, findDeprecation, isDatedRelease } from './catalog.js';
import type { Deprecation } from './deprecation.js';
import { compareRelease, parseRelease, type Release } from './release.js';

// `svc upgrade-check`: scans pipeline files, chart values, runner config.toml, svc config, shell scripts and
// operator manifests for uses of things the catalog says are removed at or before a target release. Detection is
// line-oriented on purpose: the files are often templated (Helm, ERB, shell) and need not parse, and a finding
// needs a line number. v5-only entries are never reported (no release removes them), and neither is anything
// that cannot be seen in a file (for example offset pagination on GET /users, which depends on the call's query).

/** A file to check; `path` is only echoed back in findings. */
export interface CheckedFile {
  readonly path: string;
  readonly text: string;
}

/** One use of a removed feature. */
export interface Finding {
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  /** The text that matched. */
  readonly match: string;
  readonly deprecation: Deprecation;
  /** Release of removal (always `MAJOR.MINOR`, at or before the target). */
  readonly removal: string;
  readonly breaking: boolean;
  readonly replacement: string | null;
  /** The entry is breaking and removed at or before the target: the upgrade breaks this use. */
  readonly breaksAtTarget: boolean;
}

interface Hit {
  readonly id: DeprecationId;
  readonly line: number;
  readonly match: string;
}

/** Reports every use, in `files`, of a catalog entry removed at or before `target` (`MAJOR.MINOR`). */
export function upgradeCheck(files: readonly CheckedFile[], target: string): Finding[] {
  const release = parseRelease(target);
  const findings: Finding[] = [];
  const seen = new Set<string>();
  for (const file of files) {
    for (const hit of scan(file)) {
      const d = findDeprecation(hit.id);
      if (!removedBy(d, release)) continue;
      const key = `${hit.line}\0${hit.id}\0${hit.match}`;
      if (seen.has(`${file.path}\0${key}`)) continue;
      seen.add(`${file.path}\0${key}`);
      findings.push({
        file: file.path,
        line: hit.line,
        match: hit.match,
        deprecation: d,
        removal: d.removal!,
        breaking: d.breaking,
        replacement: d.replacement,
        breaksAtTarget: d.breaking && removedBy(d, release),
      });
    }
  }
  return findings.sort(
    (a, b) =>
      a.file.localeCompare(b.file) || a.line - b.line || a.deprecation.id.localeCompare(b.deprecation.id),
  );
}

function removedBy(d: Deprecation, release: Release): boolean {
  return isDatedRelease(d.removal) && compareRelease(parseRelease(d.removal), release) <= 0;
}

/** A readable table of `findings` with a one-line summary, for the CLI. */
export function formatFindings(findings: readonly Finding[], target: string): string {
  if (findings.length === 0) {
    return `No uses of features removed at or before ${target} found.\n`;
  }
  const breaking = findings.filter((f) => f.breaksAtTarget).length;
  const header = ['LOCATION', 'ID', 'REMOVED', 'BREAKS', 'MATCH', 'REPLACEMENT'];
  const rows = findings.map((f) => [
    `${f.file}:${f.line}`,
    f.deprecation.id,
    f.removal,
    f.breaksAtTarget ? 'yes' : 'no',
    clip(f.match, 40),
    clip(f.replacement ?? '-', 60),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const summary =
    `${findings.length} use${findings.length === 1 ? '' : 's'} of features removed at or before ${target}; ` +
    `${breaking} break${breaking === 1 ? 's' : ''} the upgrade.`;
  return `${[line(header), ...rows.map(line)].join('\n')}\n\n${summary}\n`;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

// ---------------------------------------------------------------------------------------------------------------
// Scanning

interface Scanned {
  readonly path: string;
  readonly text: string;
  readonly lines: readonly string[];
  readonly yaml: readonly YamlNode[] | null;
}

function scan(file: CheckedFile): Hit[] {
  const lines = file.text.split(/\r?\n/);
  const scanned: Scanned = {
    path: file.path,
    text: file.text,
    lines,
    yaml: /\.ya?ml$/i.test(file.path) ? yamlOutline(lines) : null,
  };
  return [
    ...lineHits(scanned),
    ...commandHits(scanned),
    ...(scanned.yaml ? yamlHits(scanned, scanned.yaml) : []),
    ...duplicateStorageHits(scanned),
  ];
}

/** Full-line `#` comments (YAML, shell, TOML, Ruby) are not uses. */
function isComment(line: string): boolean {
  return /^\s*#/.test(line);
}

interface LineRule {
  readonly id: DeprecationId;
  readonly pattern: RegExp;
}

// Plain text patterns; each must carry the g flag. Names that are not neutral here are the literal names the
// user's files contain (template file names, variables), which the detector must match.
const LINE_RULES: readonly LineRule[] = [
  // 17.0 "License Scanning CI templates" (Jobs/ and Security/ variants, plain and latest).
  { id: 'license_scanning_templates', pattern: /\bLicense-Scanning(?:\.latest)?\.gitlab-ci\.yml\b/g },
  // 18.0 infrastructure-as-code templates: plain, latest, Base, Base latest.
  { id: 'iac_templates', pattern: /(?<![\w-])Terraform(?:\/Base)?(?:\.latest)?\.gitlab-ci\.yml\b/g },
  // 17.0 fmt job of the Module templates: the hidden job the Module-Base template defined.
  { id: 'iac_module_fmt_job', pattern: /\.terraform-module:fmt\b/g },
  { id: 'ci_job_jwt', pattern: /\bCI_JOB_JWT(?:_V[12])?\b/g },
  { id: 'dast_legacy_variables', pattern: /\bDAST_SCANNER_(?:CLI_OPTIONS|LOG_CONFIGURATION)\b/g },
  // Auto Build falls back to the legacy buildpack system only when CNB is switched off.
  {
    id: 'auto_devops_legacy_buildpacks',
    pattern: /\bAUTO_DEVOPS_BUILD_IMAGE_CNB_ENABLED\b["']?\s*[:=]\s*["']?false\b["']?/g,
  },
  { id: 'runner_chart_registration_token', pattern: /\brunnerRegistrationToken\b/g },
  { id: 'runner_operator_registration_token', pattern: /(?<![\w-])runner-registration-token\b/g },
  { id: 'shared_runners_registration_token_env', pattern: /\bSVC_SHARED_RUNNERS_REGISTRATION_TOKEN\b/g },
  // Dotted forms, as in `helm --set svc.kas.privateApi.tls.enabled=true`; the YAML form is in yamlHits.
  {
    id: 'kas_private_api_tls_chart_values',
    pattern: /\bsvc\.kas\.privateApi\.tls\.(?:enabled|secretName)\b/g,
  },
  { id: 'kas_agent_ca_cert_options', pattern: /(?<![\w-])--ca-cert-file\b/g },
  { id: 'kas_agent_ca_cert_options', pattern: /(?<![\w.])config\.caCert\b/g },
  { id: 'worker_min_max_concurrency', pattern: /\bworker\[\s*['"](?:min|max)_concurrency['"]\s*\]/g },
  { id: 'worker_min_max_concurrency', pattern: /\bWORKER_CONCURRENCY_(?:MIN|MAX)\b/g },
  // config.toml `shell = "cmd"`, or `register --shell cmd`.
  { id: 'runner_windows_cmd_shell', pattern: /^\s*shell\s*=\s*["']cmd["']/g },
  { id: 'runner_windows_cmd_shell', pattern: /(?<![\w-])--shell[=\s]+["']?cmd\b/g },
  // Only the TOML assignment (runner config.toml, also embedded in chart values): the YAML key of the same name
  // is the container orchestrator's own pod field, which is not deprecated.
  { id: 'runner_termination_grace_period_seconds', pattern: /^\s*terminationGracePeriodSeconds\s*=\s*\S*/g },
  { id: 'list_repos', pattern: /\bsvc:list_repos\b|\bsvc\s+list-repos\b/g },
  { id: 'runner_reset_registration_token_api', pattern: /\/runners\/reset_registration_token\b/g },
  { id: 'jwks_endpoint', pattern: /\/-\/jwks\b/g },
];

function lineHits(file: Scanned): Hit[] {
  const hits: Hit[] = [];
  file.lines.forEach((text, i) => {
    if (isComment(text)) return;
    for (const rule of LINE_RULES) {
      for (const m of text.matchAll(rule.pattern)) {
        hits.push({ id: rule.id, line: i + 1, match: m[0].trim() });
      }
    }
  });
  return hits;
}

// ---------------------------------------------------------------------------------------------------------------
// Commands: shell lines joined over trailing backslashes, so that `register \` + `--locked` is one command.

interface Command {
  readonly text: string;
  /** Start offset in `text` of each physical line, with its 1-based line number. */
  readonly parts: readonly { readonly start: number; readonly line: number }[];
}

function commands(lines: readonly string[]): Command[] {
  const out: Command[] = [];
  let text = '';
  let parts: { start: number; line: number }[] = [];
  lines.forEach((raw, i) => {
    if (isComment(raw) && parts.length === 0) return;
    const continued = /\\\s*$/.test(raw);
    parts.push({ start: text.length, line: i + 1 });
    text += `${continued ? raw.replace(/\\\s*$/, '') : raw} `;
    if (continued) return;
    out.push({ text, parts });
    text = '';
    parts = [];
  });
  if (parts.length > 0) out.push({ text, parts });
  return out;
}

function lineAt(cmd: Command, offset: number): number {
  let line = cmd.parts[0]!.line;
  for (const p of cmd.parts) if (p.start <= offset) line = p.line;
  return line;
}

/** Arguments the register command and POST /api/v4/runners take only with a registration token (18.0). */
const REGISTRATION_ARGS =
  /(?<![\w-])--(?:registration-token|locked|access-level|run-untagged|maximum-timeout|paused|tag-list|maintenance-note)\b/g;
/** Signs of a registration token: the flag, `-r`, a *REGISTRATION_TOKEN variable, or the token prefix. */
const REGISTRATION_TOKEN =
  /(?<![\w-])--registration-token\b|(?<![\w-])-r(?=[\s=])|REGISTRATION_TOKEN\b|\bGR1348941/;

function commandHits(file: Scanned): Hit[] {
  const hits: Hit[] = [];
  // A token exported earlier in the script counts for a later register command.
  const fileHasRegistrationToken = /--registration-token\b|REGISTRATION_TOKEN\b|\bGR1348941/.test(
    file.lines.filter((l) => !isComment(l)).join('\n'),
  );
  for (const cmd of commands(file.lines)) {
    const add = (id: DeprecationId, m: RegExpMatchArray) =>
      hits.push({ id, line: lineAt(cmd, m.index ?? 0), match: m[0].trim() });

    if (
      /(?<![\w-])register\b/.test(cmd.text) &&
      (fileHasRegistrationToken || REGISTRATION_TOKEN.test(cmd.text))
    ) {
      for (const m of cmd.text.matchAll(REGISTRATION_ARGS)) add('runner_register_command_arguments', m);
    }
    // POST /api/v4/runners (registration with a registration token); not /runners/all, /runners/:id, ...
    const runners = /\/api\/v4\/runners(?=["'\s?]|$)/.exec(cmd.text);
    if (runners && /\bPOST\b|(?<![\w-])(?:--form|-F|--data[\w-]*|-d)(?=[\s=])/.test(cmd.text)) {
      add('runner_registration_token_api', runners);
    }
    if (/\/application\/settings\b/.test(cmd.text)) {
      for (const m of cmd.text.matchAll(/\b(?:sign_in_text|help_text)\b/g))
        add('settings_sign_in_text_help_text', m);
    }
    const lint = /\S*\/ci\/lint\S*/.exec(cmd.text);
    if (lint && /[?&\s"']ref=/.test(cmd.text) && /[?&\s"']sha=/.test(cmd.text))
      add('ci_lint_ref_and_sha', lint);
  }
  return hits;
}

// ---------------------------------------------------------------------------------------------------------------
// YAML structure, from indentation alone (values files are often templated and need not parse).

interface YamlNode {
  readonly line: number;
  readonly indent: number;
  /** The key, or `-` for a sequence item. */
  readonly key: string;
  readonly value: string;
  readonly parent: YamlNode | null;
  readonly children: YamlNode[];
  readonly raw: string;
}

const KEY_LINE = /^("[^"]*"|'[^']*'|[^\s"'#{[][^#]*?)\s*:(?=\s|$)\s*(.*)$/;

function yamlOutline(lines: readonly string[]): YamlNode[] {
  const nodes: YamlNode[] = [];
  let stack: YamlNode[] = [];
  let blockIndent: number | null = null; // inside a block scalar owned by a node at this indent
  const push = (node: YamlNode) => {
    nodes.push(node);
    node.parent?.children.push(node);
    stack.push(node);
    if (/^[|>][-+0-9]*$/.test(node.value)) blockIndent = node.indent;
  };
  lines.forEach((raw, i) => {
    const indent = raw.length - raw.trimStart().length;
    const content = raw.trim();
    if (blockIndent !== null) {
      if (content === '' || indent > blockIndent) return;
      blockIndent = null;
    }
    if (content === '' || content.startsWith('#') || content.startsWith('%')) return;
    if (content === '---' || content.startsWith('--- ')) {
      stack = [];
      return;
    }
    let col = indent;
    let rest = raw.slice(indent);
    // Sequence items: `- a: 1` opens an item node and a key node inside it.
    while (/^-(\s|$)/.test(rest)) {
      const itemCol = col;
      while (stack.length > 0) {
        const top = stack[stack.length - 1]!;
        if (top.indent > itemCol || (top.indent === itemCol && top.key === '-')) stack.pop();
        else break;
      }
      const after = rest.slice(1);
      const pad = after.length - after.trimStart().length;
      const value = after.trim();
      const item: YamlNode = {
        line: i + 1,
        indent: itemCol,
        key: '-',
        value: KEY_LINE.test(value) ? '' : stripComment(value),
        parent: stack[stack.length - 1] ?? null,
        children: [],
        raw,
      };
      push(item);
      col = itemCol + 1 + pad;
      rest = after.trimStart();
      if (rest === '') return;
    }
    const m = KEY_LINE.exec(rest);
    if (!m) return;
    while (stack.length > 0 && stack[stack.length - 1]!.indent >= col) stack.pop();
    push({
      line: i + 1,
      indent: col,
      key: unquote(m[1]!.trim()),
      value: stripComment(m[2] ?? ''),
      parent: stack[stack.length - 1] ?? null,
      children: [],
      raw,
    });
  });
  return nodes;
}

function stripComment(value: string): string {
  return value.replace(/(^|\s)#.*$/, '').trim();
}

function unquote(text: string): string {
  return /^(["']).*\1$/.test(text) ? text.slice(1, -1) : text;
}

/** Keys from the root to `node`, sequence items included as `-`. */
function pathOf(node: YamlNode): string[] {
  const keys: string[] = [];
  for (let n: YamlNode | null = node; n; n = n.parent) keys.unshift(n.key);
  return keys;
}

function endsWith(path: readonly string[], suffix: readonly string[]): boolean {
  return suffix.every((k, i) => path[path.length - suffix.length + i] === k);
}

const DB_CONNECTION_KEYS = /^(adapter|database|host|port|username|password|url|socket|encoding|sslmode)$/;

function yamlHits(file: Scanned, nodes: readonly YamlNode[]): Hit[] {
  const hits: Hit[] = [];
  const add = (id: DeprecationId, n: YamlNode) => hits.push({ id, line: n.line, match: n.raw.trim() });
  const includesModuleTemplate = /Terraform(?:-Module|\/Module-Base)\.gitlab-ci\.yml/.test(file.text);
  const usesModuleFmt = /\.terraform-module:fmt\b/.test(file.text);
  const hasIdTokens = nodes.some((n) => n.key === 'id_tokens');
  for (const n of nodes) {
    const path = pathOf(n);
    // 18.0: `artifacts: reports: license_scanning:` (a job may still be *named* license_scanning).
    if (n.key === 'license_scanning' && n.parent?.key === 'reports') add('license_scanning_report_type', n);
    // 17.0: a top-level `fmt` job in a pipeline that includes a Module template overrides the removed job.
    if (n.key === 'fmt' && n.parent === null && includesModuleTemplate && !usesModuleFmt)
      add('iac_module_fmt_job', n);
    // 17.0: secrets from the external secrets manager without id_tokens rely on CI_JOB_JWT.
    if (n.key === 'secrets' && n.parent?.parent === null && !hasIdTokens)
      add('secrets_manager_ci_job_jwt', n);
    if (
      (n.key === 'enabled' || n.key === 'secretName') &&
      endsWith(path, ['svc', 'kas', 'privateApi', 'tls', n.key])
    ) {
      add('kas_private_api_tls_chart_values', n);
    }
    // The dotted `config.caCert` spelling is a line rule; this is the nested chart value.
    if (n.key === 'caCert' && n.parent?.key === 'config') add('kas_agent_ca_cert_options', n);
    // 18.0: a database configuration with only a `main:` connection and no `ci:` one.
    if (
      n.key === 'main' &&
      n.children.some((c) => DB_CONNECTION_KEYS.test(c.key)) &&
      !(n.parent?.children ?? nodes.filter((x) => x.parent === null)).some((s) => s.key === 'ci')
    ) {
      add('single_database_connection', n);
    }
    // svc's configuration-file spelling of SVC_SHARED_RUNNERS_REGISTRATION_TOKEN.
    if (n.key === 'shared_runners_registration_token' && n.parent === null) {
      add('shared_runners_registration_token_env', n);
    }
  }
  return hits;
}

// ---------------------------------------------------------------------------------------------------------------
// 17.0 duplicate storages: every storage after the first that uses an already-used path.

interface StorageUse {
  readonly name: string;
  readonly path: string;
  readonly line: number;
  readonly match: string;
}

function duplicateStorageHits(file: Scanned): Hit[] {
  const groups: StorageUse[][] = [];
  if (file.yaml) groups.push(...yamlStorages(file.yaml));
  if (/\.toml$/i.test(file.path)) groups.push(tomlStorages(file.lines));
  groups.push(rubyStorages(file.lines), ...envStorages(file.lines));
  const hits: Hit[] = [];
  for (const group of groups) {
    const firstByPath = new Map<string, string>();
    for (const s of group) {
      const key = normalizePath(s.path);
      if (firstByPath.has(key)) hits.push({ id: 'duplicate_storage_paths', line: s.line, match: s.match });
      else firstByPath.set(key, s.name);
    }
  }
  return hits;
}

function normalizePath(path: string): string {
  const p = unquote(path.trim())
    .replace(/(\/\.)+$/, '')
    .replace(/\/+$/, '');
  return p === '' ? '/' : p;
}

/** `storages:` as a mapping (`name: {path}` or `name: /path`) or a list of `{name, path}` items. */
function yamlStorages(nodes: readonly YamlNode[]): StorageUse[][] {
  return nodes
    .filter((n) => n.key === 'storages')
    .map((storages) =>
      storages.children.flatMap((s): StorageUse[] => {
        const pathNode = s.children.find((c) => c.key === 'path');
        if (s.key === '-') {
          const name = s.children.find((c) => c.key === 'name')?.value ?? '';
          return pathNode?.value
            ? [{ name, path: pathNode.value, line: pathNode.line, match: pathNode.raw.trim() }]
            : [];
        }
        if (pathNode?.value)
          return [{ name: s.key, path: pathNode.value, line: pathNode.line, match: pathNode.raw.trim() }];
        return s.value && s.children.length === 0
          ? [{ name: s.key, path: s.value, line: s.line, match: s.raw.trim() }]
          : [];
      }),
    );
}

/** `[[storage]]` tables with `name =` and `path =` (repository-storage service config.toml). */
function tomlStorages(lines: readonly string[]): StorageUse[] {
  const uses: StorageUse[] = [];
  let current: { name: string } | null = null;
  lines.forEach((text, i) => {
    if (/^\s*\[/.test(text)) current = /^\s*\[\[storage\]\]/.test(text) ? { name: '' } : null;
    if (!current) return;
    const name = /^\s*name\s*=\s*["']([^"']*)["']/.exec(text);
    if (name) current.name = name[1]!;
    const path = /^\s*path\s*=\s*["']([^"']*)["']/.exec(text);
    if (path) uses.push({ name: current.name, path: path[1]!, line: i + 1, match: text.trim() });
  });
  return uses;
}

/** Linux-package style `"name" => { "path" => "/dir" }` entries. */
function rubyStorages(lines: readonly string[]): StorageUse[] {
  const uses: StorageUse[] = [];
  lines.forEach((text, i) => {
    if (isComment(text)) return;
    for (const m of text.matchAll(/["']([\w-]+)["']\s*=>\s*\{\s*["']path["']\s*=>\s*["']([^"']+)["']/g)) {
      uses.push({ name: m[1]!, path: m[2]!, line: i + 1, match: m[0] });
    }
  });
  return uses;
}

/** `SVC_STORAGES=default=/a,fast=/b` (svc's environment form), one group per assignment. */
function envStorages(lines: readonly string[]): StorageUse[][] {
  const groups: StorageUse[][] = [];
  lines.forEach((text, i) => {
    if (isComment(text)) return;
    for (const m of text.matchAll(/\bSVC_STORAGES["']?\s*[=:]\s*["']?([^"'\s]+)/g)) {
      groups.push(
        m[1]!
          .split(',')
          .map((part) => part.trim())
          .filter((part) => part.indexOf('=') > 0)
          .map((part) => {
            const eq = part.indexOf('=');
            return { name: part.slice(0, eq), path: part.slice(eq + 1), line: i + 1, match: part };
          }),
      );
    }
  });
  return groups;
}
