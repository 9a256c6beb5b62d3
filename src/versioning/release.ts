/** A release such as `16.11` or `18.0`, comparable. */
export interface Release {
  readonly major: number;
  readonly minor: number;
}

/** Parses `MAJOR.MINOR`. */
export function parseRelease(text: string): Release {
  const m = /^(\d+)\.(\d+)$/.exec(text);
  if (!m) throw new Error(`Not a release: ${text}`);
  return { major: Number(m[1]), minor: Number(m[2]) };
}

/** Negative when `a` is older than `b`, zero when equal, positive when newer. */
export function compareRelease(a: Release, b: Release): number {
  return a.major - b.major || a.minor - b.minor;
}

export function formatRelease(r: Release): string {
  return `${r.major}.${r.minor}`;
}
