/**
 * Alert silences, as Alertmanager's: matchers over an alert's labels and svc's alert fields, active from
 * `startsAt` until `endsAt`. A silenced alert is stored and counted as any other; it only pages, e-mails and
 * calls hooks for nobody while a silence matches it (checked when each page or notification is sent).
 */

export interface Matcher {
  readonly name: string;
  readonly value: string;
  readonly isRegex: boolean;
  readonly isEqual: boolean;
}

export interface Silence {
  readonly id: number;
  readonly projectId: number;
  readonly matchers: readonly Matcher[];
  readonly startsAt: string;
  readonly endsAt: string;
  readonly createdById: number | null;
  readonly comment: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export type SilenceState = 'active' | 'pending' | 'expired';
export const SILENCE_STATES: readonly SilenceState[] = ['active', 'pending', 'expired'];

export const MAX_MATCHERS = 32;
export const MAX_REGEX = 256;
export const MAX_VALUE = 1024;
export const MAX_COMMENT = 10_000;

/** The svc fields a matcher may name besides the alert's labels; they win over a label of the same name. */
export const ALERT_FIELDS = ['title', 'severity', 'service', 'monitoring_tool', 'environment'] as const;

/** What a matcher sees of an alert. */
export interface Matchable {
  readonly title: string;
  readonly severity: string;
  readonly service: string | null;
  readonly monitoringTool: string | null;
  readonly environment: string | null;
  readonly payload: unknown;
}

export function silenceState(s: Pick<Silence, 'startsAt' | 'endsAt'>, now: Date): SilenceState {
  const t = now.getTime();
  if (t < new Date(s.startsAt).getTime()) return 'pending';
  if (t >= new Date(s.endsAt).getTime()) return 'expired';
  return 'active';
}

/**
 * The label set of an alert: the string labels of a Prometheus alert's payload (`labels`), then svc's fields
 * (svc's normalised values: `severity` is svc's severity, not the raw label).
 */
export function labelSet(a: Matchable): Map<string, string> {
  const out = new Map<string, string>();
  const p = a.payload;
  const labels =
    p && typeof p === 'object' && !Array.isArray(p) ? (p as Record<string, unknown>).labels : undefined;
  if (labels && typeof labels === 'object' && !Array.isArray(labels))
    for (const [k, v] of Object.entries(labels as Record<string, unknown>))
      if (typeof v === 'string') out.set(k, v);
  const fields: Record<(typeof ALERT_FIELDS)[number], string | null> = {
    title: a.title,
    severity: a.severity,
    service: a.service,
    monitoring_tool: a.monitoringTool,
    environment: a.environment,
  };
  for (const f of ALERT_FIELDS) {
    const v = fields[f];
    if (v !== null) out.set(f, v);
  }
  return out;
}

/**
 * Why a regex is refused, or null. JavaScript's engine backtracks, so only patterns without the constructs that
 * make backtracking exponential or unbounded are taken (an RE2-like subset): at most 256 characters, no
 * backreferences, no lookarounds, and no quantified group that holds a quantifier or an alternation (`(a+)+`,
 * `(a|a)*`). Then it must compile.
 */
export function regexProblem(re: string): string | null {
  if (re.length > MAX_REGEX) return `regex is longer than ${MAX_REGEX} characters`;
  const stack: { quantified: boolean; alternation: boolean }[] = [{ quantified: false, alternation: false }];
  const isQuant = (c: string | undefined) => c === '*' || c === '+' || c === '?' || c === '{';
  for (let i = 0; i < re.length; i++) {
    const c = re[i];
    if (c === '\\') {
      const n = re[i + 1];
      if (n !== undefined && /[1-9k]/.test(n)) return 'backreferences are not supported';
      i++;
      if (isQuant(re[i + 1])) stack.at(-1)!.quantified = true;
      continue;
    }
    if (c === '[') {
      i++;
      if (re[i] === '^') i++;
      if (re[i] === ']') i++;
      while (i < re.length && re[i] !== ']') i += re[i] === '\\' ? 2 : 1;
      if (isQuant(re[i + 1])) stack.at(-1)!.quantified = true;
      continue;
    }
    if (c === '(') {
      if (
        re[i + 1] === '?' &&
        (re[i + 2] === '=' || re[i + 2] === '!' || (re[i + 2] === '<' && /[=!]/.test(re[i + 3] ?? '')))
      )
        return 'lookarounds are not supported';
      stack.push({ quantified: false, alternation: false });
      continue;
    }
    if (c === ')') {
      if (stack.length === 1) return 'unbalanced parenthesis';
      const g = stack.pop()!;
      const top = stack.at(-1)!;
      if (isQuant(re[i + 1])) {
        if (g.quantified || g.alternation) return 'nested quantifiers are not supported';
        top.quantified = true;
      } else if (g.quantified) top.quantified = true;
      continue;
    }
    if (c === '|') stack.at(-1)!.alternation = true;
    else if (isQuant(re[i + 1]) && c !== '(') stack.at(-1)!.quantified = true;
  }
  try {
    new RegExp(re);
  } catch {
    return 'invalid regex';
  }
  return null;
}

/** Alertmanager anchors a matcher's regex at both ends. */
const anchored = (re: string) => new RegExp(`^(?:${re})$`);

/** Checks matchers as the API takes them; the message of the first problem, or null. */
export function matchersProblem(input: unknown): string | null {
  if (!Array.isArray(input) || input.length === 0) return 'matchers must be a non-empty array';
  if (input.length > MAX_MATCHERS) return `at most ${MAX_MATCHERS} matchers are allowed`;
  for (const m of input as Record<string, unknown>[]) {
    if (!m || typeof m !== 'object') return 'each matcher must be an object';
    if (typeof m.name !== 'string' || !/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(m.name))
      return 'matcher name must be a label name';
    if (typeof m.value !== 'string') return 'matcher value must be a string';
    if (m.value.length > MAX_VALUE) return `matcher value is longer than ${MAX_VALUE} characters`;
    if (m.isRegex !== undefined && typeof m.isRegex !== 'boolean') return 'isRegex must be a boolean';
    if (m.isEqual !== undefined && typeof m.isEqual !== 'boolean') return 'isEqual must be a boolean';
    if (m.isRegex === true) {
      const problem = regexProblem(m.value);
      if (problem) return `matcher ${m.name}: ${problem}`;
    }
  }
  // Alertmanager's rule: a silence made only of matchers that match an empty label would silence everything.
  const ms = normalise(input as Record<string, unknown>[]);
  if (ms.every((m) => matchOne(m, ''))) return 'at least one matcher must not match the empty string';
  return null;
}

/** Matchers with Alertmanager's defaults (`isRegex` false, `isEqual` true). */
export function normalise(input: readonly Record<string, unknown>[]): Matcher[] {
  return input.map((m) => ({
    name: m.name as string,
    value: m.value as string,
    isRegex: m.isRegex === true,
    isEqual: m.isEqual !== false,
  }));
}

function matchOne(m: Matcher, value: string): boolean {
  const hit = m.isRegex ? anchored(m.value).test(value) : value === m.value;
  return m.isEqual ? hit : !hit;
}

/** Whether every matcher matches the alert (a label it does not have counts as empty, as in Alertmanager). */
export function silences(matchers: readonly Matcher[], alert: Matchable): boolean {
  const labels = labelSet(alert);
  return matchers.every((m) => matchOne(m, labels.get(m.name) ?? ''));
}
