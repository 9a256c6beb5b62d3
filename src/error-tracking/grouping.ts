import { createHash } from 'node:crypto';

/**
 * Which error an event belongs to, as Sentry's grouping decides it (pure). In order: the SDK's `fingerprint`
 * (`{{ default }}` stands for the default grouping); else the stack trace's in-app frames (module, or else the
 * normalised file name, and the function; never line numbers), all frames when none is in-app; else each
 * exception's type and parameterised value; else the parameterised message template.
 *
 * Grouping changes over time. Each hash is stored with the version that computed it, and an event computes the
 * hash of every supported version: an error found by any of them takes the event, so a new version never splits
 * an error that an older one created.
 */

/** The grouping computed for new errors. */
export const GROUPING_VERSION = 'stacktrace:2026-11';
/** The grouping before it (GitLab's rule: exception type and culprit, or the message template). */
export const LEGACY_GROUPING_VERSION = 'culprit:1';

export interface EventHashes {
  /** Hash of GROUPING_VERSION. */
  readonly current: string;
  /** Hash of LEGACY_GROUPING_VERSION (equal to `current` for a fingerprint without `{{ default }}`). */
  readonly legacy: string;
}

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');
const isDefault = (part: unknown) => part === '{{ default }}' || part === '{{default}}';

/**
 * The hashes of an event. `legacyKey` is the legacy default key (type, culprit and platform, or the message
 * template and platform), computed where the event is normalised.
 */
export function groupingHashes(event: JsonObject, platform: string, legacyKey: string): EventHashes {
  const fp = Array.isArray(event.fingerprint) && event.fingerprint.length > 0 ? event.fingerprint : null;
  // The legacy hash is exactly what earlier releases stored as the error's fingerprint.
  const legacy = sha1(
    fp ? fp.map((part) => (isDefault(part) ? legacyKey : String(part))).join('\u0000') : legacyKey,
  );
  // A fingerprint of the SDK's own parts means the same in every version: the same hash.
  if (fp && !fp.some(isDefault)) return { current: legacy, legacy };
  const key = defaultKey(event, platform);
  const current = sha1(fp ? fp.map((part) => (isDefault(part) ? key : String(part))).join('\u0000') : key);
  return { current, legacy };
}

/** The default grouping's components of GROUPING_VERSION, joined. */
export function defaultKey(event: JsonObject, platform: string): string {
  const exceptions = exceptionValues(event);
  const stacks = exceptions.length > 0 ? exceptions.map(framesOf) : [looseFrames(event)];
  // Sentry's app variant: in-app frames only, when any frame of the event is in-app; else the system variant.
  const appOnly = stacks.some((frames) => frames.some((f) => f.in_app === true));
  const frameKeys = (frames: readonly JsonObject[]): string[] => {
    const keys: string[] = [];
    for (const f of frames) {
      if (appOnly && f.in_app !== true) continue;
      const k = frameKey(f, str(f.platform) ?? platform);
      // Recursion: a frame that repeats the one before adds nothing.
      if (k !== null && keys[keys.length - 1] !== k) keys.push(k);
    }
    return keys;
  };
  const parts: string[] = [];
  exceptions.forEach((e, i) => {
    const synthetic = isObject(e.mechanism) && e.mechanism.synthetic === true;
    // A synthetic exception (made up by the SDK around a message) has no meaningful type or value.
    const type = synthetic ? '' : (str(e.type) ?? str(e.module) ?? '');
    const frames = frameKeys(stacks[i]!);
    if (frames.length > 0) parts.push(`exception\u0001${type}`, ...frames);
    else if (!synthetic && (type !== '' || str(e.value)))
      parts.push(`exception\u0001${type}\u0001${parameterize(str(e.value) ?? '')}`);
  });
  if (parts.length === 0) {
    const frames = frameKeys(looseFrames(event));
    if (frames.length > 0) parts.push('stacktrace', ...frames);
  }
  if (parts.length === 0) {
    const template = messageTemplate(event);
    if (template !== null) parts.push(`message\u0001${parameterize(template)}`);
  }
  // Nothing to group by (an empty event): all such events of a project are one error, as in Sentry.
  if (parts.length === 0) parts.push('fallback');
  return `${GROUPING_VERSION}\u0000${parts.join('\u0000')}`;
}

function exceptionValues(event: JsonObject): JsonObject[] {
  const ex = event.exception;
  const list = Array.isArray(ex) ? ex : isObject(ex) && Array.isArray(ex.values) ? ex.values : [];
  return list.filter(isObject);
}

function framesOf(value: JsonObject | undefined): JsonObject[] {
  const st = value?.stacktrace;
  return isObject(st) && Array.isArray(st.frames) ? st.frames.filter(isObject) : [];
}

/** The stack trace of an event without exceptions: the crashed (or current, or first) thread's, or `stacktrace`. */
function looseFrames(event: JsonObject): JsonObject[] {
  const threads = (
    isObject(event.threads) && Array.isArray(event.threads.values) ? event.threads.values : []
  ).filter(isObject);
  const thread =
    threads.find((t) => t.crashed === true && framesOf(t).length > 0) ??
    threads.find((t) => t.current === true && framesOf(t).length > 0) ??
    threads.find((t) => framesOf(t).length > 0);
  if (thread) return framesOf(thread);
  return isObject(event.stacktrace) ? framesOf({ stacktrace: event.stacktrace }) : [];
}

/** The message template (`logentry.message`), not the formatted text; a plain message is its own template. */
function messageTemplate(event: JsonObject): string | null {
  for (const key of ['logentry', 'message']) {
    const m = event[key];
    if (typeof m === 'string' && m !== '') return m;
    if (isObject(m)) {
      const t = str(m.message) ?? str(m.formatted);
      if (t) return t;
    }
  }
  return null;
}

const JS_PLATFORMS = new Set(['javascript', 'node', 'react-native', 'electron', 'cocoa-js']);
const UNKNOWN_JS_FUNCTIONS = new Set(['?', '<anonymous function>', '<anonymous>', 'Anonymous function']);
const LOW_QUALITY_JS_PATHS = new Set(['[native code]', 'native code', 'eval code', '<anonymous>']);

/** One frame's grouping component: module or file name, and function; null when it contributes nothing. */
export function frameKey(f: JsonObject, platform: string): string | null {
  const js = JS_PLATFORMS.has(platform);
  const absPath = str(f.abs_path);
  const rawFunction = str(f.raw_function) ?? str(f.function);
  if (js && (rawFunction === 'eval' || (absPath !== null && LOW_QUALITY_JS_PATHS.has(absPath)))) return null;
  const mod = moduleName(str(f.module), absPath, platform);
  const file = mod === null ? fileName(str(f.filename) ?? absPath, platform) : null;
  const fn = functionName(str(f.function) ?? str(f.raw_function), platform);
  if (mod === null && file === null && fn === null) return null;
  return `${mod !== null ? `m\u0001${mod}` : `f\u0001${file ?? ''}`}\u0001${fn ?? ''}`;
}

/** Generated class names (Sentry's newstyle rules): reflection accessors, CGLIB, Javassist, Clojure functions. */
const JAVA_GENERATED: readonly [RegExp, string][] = [
  [/(sun\.reflect\.Generated(?:Serialization)?ConstructorAccessor)\d+/g, '$1<auto>'],
  [/^((?:sun|jdk\.internal)\.reflect\.GeneratedMethodAccessor)\d+/g, '$1'],
  [/(\$\$[\w_]+?CGLIB\$\$)[a-fA-F0-9]+(_[0-9]+)?/g, '$1<auto>'],
  [/(\$\$_javassist)(?:_seam)?(?:_[0-9]+)?/g, '$1<auto>'],
  [/(\$fn__)\d+/g, '$1<auto>'],
];

function moduleName(module: string | null, absPath: string | null, platform: string): string | null {
  if (module === null) return null;
  // Some JavaScript SDKs send the file path as the module: the file name rules then apply instead.
  if (JS_PLATFORMS.has(platform) && module.includes('/') && absPath?.endsWith(module)) return null;
  if (platform === 'java') {
    if (module.includes('$$Lambda$')) return null;
    let m = module;
    for (const [re, to] of JAVA_GENERATED) m = m.replace(re, to);
    return m;
  }
  return module;
}

/** Versions and content hashes in file names (`app.3f2a9c1b.js`, `vendor-1.2.3.min.js`, `chunk-5HT2QZ4K.js`). */
const FILE_VERSION = /(?:v|version|release)?\d+(?:\.\d+)+|\b[a-f0-9]{7,8}\b|[a-f0-9]{32}|[a-f0-9]{40}/g;
const BUNDLER_HASH = /([.-])(?=[A-Za-z0-9_]*\d)[A-Za-z0-9_]{8,}(?=\.(?:m?js|cjs|jsx?|tsx?|css)$)/g;

function fileName(path: string | null, platform: string): string | null {
  if (path === null) return null;
  const noQuery = path.replace(/[?#].*$/, '');
  const base = (noQuery.split(/[/\\]/).pop() ?? '').toLowerCase();
  if (base === '' || base === '<anonymous>' || base === '[native code]') return null;
  let name = base.replace(BUNDLER_HASH, '$1<hash>').replace(FILE_VERSION, '<version>');
  if (platform === 'java') name = name.replace(/(\$\$_javassist)(?:_seam)?(?:_[0-9]+)?/g, '$1<auto>');
  return name;
}

function functionName(fn: string | null, platform: string): string | null {
  if (fn === null) return null;
  if (JS_PLATFORMS.has(platform)) {
    // `Object.foo`, `Foo.foo`, `async Foo.foo` and `foo` are one function across browsers and runtimes.
    const name =
      fn
        .replace(/^async /, '')
        .split('.')
        .pop() ?? fn;
    if (UNKNOWN_JS_FUNCTIONS.has(name) || name.endsWith('/<') || name === '') return null;
    // Minifiers rename functions to one or two characters that change from build to build.
    if (/^[A-Za-z_$][A-Za-z0-9_$]?$/.test(name)) return null;
    return name;
  }
  if (platform === 'ruby') return fn.startsWith('block ') ? 'block' : fn.replace(/__\d{4,}_\d{4,}$/, '');
  if (platform === 'php' && (fn.startsWith('[Anonymous') || fn.startsWith('class@anonymous'))) return null;
  if (platform === 'java' && fn.startsWith('lambda$')) return null;
  if (fn === '<redacted>' || fn === '<unknown>') return null;
  return fn;
}

/**
 * Message parameterisation as Sentry's grouping does it: e-mail addresses, URLs, IP addresses, UUIDs, SHA-1 and
 * MD5 digests, dates and times, durations, hexadecimal numbers, floats, integers and quoted values of `key="..."` become
 * placeholders, so that `user 42 not found` and `user 43 not found` are one error.
 */
const PARAMETERS = new RegExp(
  [
    String.raw`(?<email>[a-zA-Z0-9.!#$%&'*+/=?^_\x60{|}~-]+@[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)*)`,
    String.raw`(?<url>\b(?:wss?|https?|ftp)://[^\s/$.?#].[^\s]*)`,
    String.raw`(?<ip>(?<![\w:])(?:(?:[0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}|(?:[0-9a-fA-F]{1,4}:){1,6}:(?:[0-9a-fA-F]{1,4}(?::[0-9a-fA-F]{1,4}){0,5})?)(?![\w:])|\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b)`,
    String.raw`(?<uuid>\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b)`,
    String.raw`(?<sha1>\b[0-9a-fA-F]{40}\b)`,
    String.raw`(?<md5>\b[0-9a-fA-F]{32}\b)`,
    String.raw`(?<date>\d{4}-?[01]\d-?[0-3]\d[\sT][0-2]\d:?[0-5]\d(?::?[0-5]\d(?:\.\d+)?)?(?:Z|[+-][0-2]\d:?[0-5]\d)?|\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun),\s\d{1,2}\s(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s\d{2,4}\s\d{1,2}:\d{1,2}(?::\d{1,2})?\s(?:[-+]\d{4}|UT|GMT|[ECMP][SD]T|[A-IK-Z])|\b\d{4}-[01]\d-[0-3]\d\b|(?<!\d)(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?![\d:]))`,
    String.raw`(?<duration>\b\d+ms\b|\b\d+(?:\.\d+)?s\b)`,
    String.raw`(?<hex>\b0[xX][0-9a-fA-F]+\b|\b(?=[a-f]*\d)[0-9a-f]{8,128}\b|\b(?=[A-F]*\d)[0-9A-F]{8,128}\b)`,
    String.raw`(?<float>-\d+\.\d+\b|\b\d+\.\d+\b)`,
    String.raw`(?<int>(?:\b|(?<!\w)-)\d+\b)`,
    String.raw`(?<=\=)(?<quoted>'[^']+'|"[^"]+")`,
  ].join('|'),
  'g',
);

export function parameterize(text: string): string {
  return text.replace(PARAMETERS, (...args) => {
    const groups = args[args.length - 1] as Record<string, string | undefined>;
    for (const [name, v] of Object.entries(groups)) if (v !== undefined) return `<${name}>`;
    return args[0] as string;
  });
}
