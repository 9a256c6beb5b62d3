/**
 * Masks credentials in URLs before they are logged. Parameter names are compared after percent-decoding, as
 * Fastify's query parser (and Rack, for GitLab) decodes them: `?private%5Ftoken=...` authenticates, so it must
 * be masked too.
 */

export const REDACTED = '[REDACTED]';

/**
 * Decoded parameter names (lower-cased) whose values are masked: GitLab's and Sentry's credential parameters,
 * and anything that merely looks like one (over-masking a log line costs nothing).
 */
const SECRET_NAME =
  /token|password|passwd|secret|key|auth|credential|session|signature|sig$|^sig|csrf|cookie|otp|code$/;

/** Values that are credentials whatever the parameter is called (svc and GitLab token prefixes). */
const SECRET_VALUE = /(?:svcpat-|glpat-|glrt-|glcbt-|gldt-|glptt-|glft-|glsoat-)/i;

/** `scheme://user:pass@` anywhere (absolute-form request targets, URLs inside parameter values). */
const USERINFO = /(\/\/|%2f%2f)[^/?#@]*(@|%40)/gi;

/** `/-/acknowledge/<token>`: the token is the credential of a one-use acknowledge link. */
const ACK_LINK = /(\/-\/acknowledge\/)[^/?#]+/i;

/** Percent-decodes what can be decoded (`+` as space), leaving malformed escapes as they are; never throws. */
export function lenientDecode(text: string): string {
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    });
  }
}

/** Whether a query parameter (raw, as sent) names a credential. Decodes twice to catch double encoding. */
export function isSecretParam(rawName: string): boolean {
  const once = lenientDecode(rawName);
  const names = [once, lenientDecode(once)].map((n) => n.toLowerCase().replace(/[\s\-.]/g, '_'));
  return names.some((n) => SECRET_NAME.test(n));
}

function redactPair(pair: string): string {
  const eq = pair.indexOf('=');
  if (eq < 0) return pair;
  const name = pair.slice(0, eq);
  const value = pair.slice(eq + 1);
  if (value === '') return pair;
  if (isSecretParam(name)) return `${name}=${REDACTED}`;
  const decoded = lenientDecode(lenientDecode(value));
  if (SECRET_VALUE.test(decoded) || /\/\/[^/?#@]*@/.test(decoded)) return `${name}=${REDACTED}`;
  return pair;
}

/** A URL (or request target) safe to log: credential parameters, token-like values and userinfo masked. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const safePath = path
    .replace(USERINFO, `$1${REDACTED}$2`)
    // A page's acknowledge link carries its token in the path.
    .replace(ACK_LINK, `$1${REDACTED}`);
  if (q < 0) return safePath;
  // `&` is Fastify's separator; `;` is Rack's other one: split on both so no reading of the query escapes.
  const query = url
    .slice(q + 1)
    .split(/([&;])/)
    .map((part) => (part === '&' || part === ';' ? part : redactPair(part)))
    .join('');
  return `${safePath}?${query}`;
}
