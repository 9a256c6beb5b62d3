/**
 * Sentry's issue search syntax, as far as svc's errors can answer it: `key:value` terms and free text, combined
 * with AND (a space). Pure: the repository turns the terms into SQL, the service names users. Anything this does
 * not understand is a SearchSyntaxError whose message names the problem, never a silently ignored term.
 */

export type IsValue = 'unresolved' | 'resolved' | 'ignored' | 'assigned' | 'unassigned';
const IS_VALUES: readonly IsValue[] = ['unresolved', 'resolved', 'ignored', 'assigned', 'unassigned'];

/** Keys answered from the error or its events; any other `key:value` is a tag. */
export type FieldKey = 'release' | 'environment' | 'user.email';
const FIELD_KEYS: readonly FieldKey[] = ['release', 'environment', 'user.email'];

export type SearchTerm =
  | { readonly kind: 'is'; readonly value: IsValue; readonly negated: boolean }
  /** `me`, or a username. */
  | { readonly kind: 'assigned'; readonly value: string; readonly negated: boolean }
  | { readonly kind: 'field'; readonly key: FieldKey; readonly value: string; readonly negated: boolean }
  /** `has:user`, `has:release`, `has:environment`, or any tag key. */
  | { readonly kind: 'has'; readonly key: string; readonly negated: boolean }
  | { readonly kind: 'tag'; readonly key: string; readonly value: string; readonly negated: boolean }
  /** The unquoted words as one phrase, or a quoted phrase: contained in the error's type, message or culprit. */
  | { readonly kind: 'text'; readonly value: string };

/** The search's own error: the only thing `parseErrorSearch` throws. */
export class SearchSyntaxError extends Error {
  constructor(reason: string) {
    super(`Invalid search: ${reason}`);
    this.name = 'SearchSyntaxError';
  }
}

export const MAX_SEARCH_LENGTH = 1000;
export const MAX_SEARCH_TERMS = 20;
const MAX_VALUE_LENGTH = 200;
/** Sentry's tag keys: letters, digits, `_`, `.`, `-` (and `:` is the separator, so never in a key here). */
const KEY = /^[A-Za-z0-9_.-]{1,200}$/;
/** Keys Sentry reserves (svc answers only some of them): never read as tags. */
const RESERVED = new Set(['is', 'assigned', 'has', 'user', 'bookmarks', 'age', 'first-release', 'timesSeen']);

/** Reads a quoted string starting at `s[i] === '"'`; returns its text and the index after the closing quote. */
function quoted(s: string, i: number): { text: string; end: number } {
  let out = '';
  let j = i + 1;
  while (j < s.length) {
    const c = s[j]!;
    if (c === '\\' && j + 1 < s.length && (s[j + 1] === '"' || s[j + 1] === '\\')) {
      out += s[j + 1];
      j += 2;
    } else if (c === '"') {
      return { text: out, end: j + 1 };
    } else {
      out += c;
      j++;
    }
  }
  throw new SearchSyntaxError(`unterminated quote at position ${i + 1}`);
}

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r';

/** Splits the query into raw tokens: `{negated, key?, value, quotedValue}`. */
function tokens(s: string): { negated: boolean; key: string | null; value: string; bare: string }[] {
  const out: { negated: boolean; key: string | null; value: string; bare: string }[] = [];
  let i = 0;
  while (i < s.length) {
    if (isSpace(s[i])) {
      i++;
      continue;
    }
    const start = i;
    if (s[i] === '"') {
      const q = quoted(s, i);
      if (q.end < s.length && !isSpace(s[q.end]))
        throw new SearchSyntaxError(`expected a space after the quote closed at position ${q.end}`);
      out.push({ negated: false, key: null, value: q.text, bare: s.slice(start, q.end) });
      i = q.end;
      continue;
    }
    // A word, up to a space; a quote inside it must follow `key:` and runs to its closing quote.
    let j = i;
    while (j < s.length && !isSpace(s[j]) && s[j] !== '"') j++;
    const word = s.slice(i, j);
    if (s[j] === '"') {
      const m = /^(!?)([^:]+):$/.exec(word);
      if (!m) throw new SearchSyntaxError(`unexpected quote at position ${j + 1}`);
      const q = quoted(s, j);
      if (q.end < s.length && !isSpace(s[q.end]))
        throw new SearchSyntaxError(`expected a space after the quote closed at position ${q.end}`);
      out.push({ negated: m[1] === '!', key: m[2]!, value: q.text, bare: s.slice(start, q.end) });
      i = q.end;
      continue;
    }
    i = j;
    const colon = word.indexOf(':');
    if (colon > 0) {
      const negated = word.startsWith('!');
      const key = word.slice(negated ? 1 : 0, colon);
      out.push({ negated, key, value: word.slice(colon + 1), bare: word });
    } else {
      out.push({ negated: false, key: null, value: word, bare: word });
    }
  }
  return out;
}

/** Parses a search; throws SearchSyntaxError (and nothing else) on anything it cannot answer. */
export function parseErrorSearch(input: string): SearchTerm[] {
  if (input.length > MAX_SEARCH_LENGTH)
    throw new SearchSyntaxError(`longer than ${MAX_SEARCH_LENGTH} characters`);
  const terms: SearchTerm[] = [];
  // Unquoted words are one phrase, as Sentry's raw search (and GitLab's search) reads them; each quoted phrase is
  // a term of its own.
  const words: string[] = [];
  const all = tokens(input);
  if (all.length > MAX_SEARCH_TERMS) throw new SearchSyntaxError(`more than ${MAX_SEARCH_TERMS} terms`);
  for (const t of all) {
    if (t.value.length > MAX_VALUE_LENGTH)
      throw new SearchSyntaxError(
        `"${t.bare.slice(0, 40)}..." is longer than ${MAX_VALUE_LENGTH} characters`,
      );
    if (t.key === null) {
      if (t.bare.startsWith('"')) {
        if (t.value !== '') terms.push({ kind: 'text', value: t.value });
      } else words.push(t.value);
      continue;
    }
    const { key, value, negated } = t;
    const isReserved = RESERVED.has(key) || FIELD_KEYS.includes(key as FieldKey) || key.startsWith('user.');
    if (!KEY.test(key)) {
      // Not a key at all ("a=b:c", "!:x"): free text, as Sentry reads it; but `!` only negates a key.
      if (negated) throw new SearchSyntaxError(`"${t.bare}": only a key:value term can be negated`);
      words.push(t.bare);
      continue;
    }
    if (value === '') {
      // A tag key followed by nothing ("TypeError: boom") is text, as a GitLab search was; a reserved key is not.
      if (isReserved || negated) throw new SearchSyntaxError(`"${t.bare}" has no value`);
      words.push(t.bare);
      continue;
    }
    if (key === 'is') {
      if (!IS_VALUES.includes(value as IsValue))
        throw new SearchSyntaxError(`unknown key "is:${value}" (is: takes ${IS_VALUES.join(', ')})`);
      terms.push({ kind: 'is', value: value as IsValue, negated });
    } else if (key === 'assigned') {
      terms.push({ kind: 'assigned', value, negated });
    } else if (key === 'has') {
      if (!KEY.test(value)) throw new SearchSyntaxError(`"has:${value}" is not a key`);
      terms.push({ kind: 'has', key: value, negated });
    } else if (FIELD_KEYS.includes(key as FieldKey)) {
      terms.push({ kind: 'field', key: key as FieldKey, value, negated });
    } else if (isReserved) {
      throw new SearchSyntaxError(`unknown key "${key}"`);
    } else {
      terms.push({ kind: 'tag', key, value, negated });
    }
  }
  if (words.length > 0) terms.push({ kind: 'text', value: words.join(' ') });
  return terms;
}
