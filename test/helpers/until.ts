/** Polls `fn` until it returns a truthy value or the deadline passes (no fixed sleeps). */
export async function until<T>(
  fn: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  what: string | (() => string),
  ms = 15_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
