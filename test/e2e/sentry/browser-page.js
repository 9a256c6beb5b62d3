// Runs in Chromium on a page from another origin than the DSN (so the SDK posts cross-origin, as in real life).
// Sends one exception and one message, then sets `window.__sentryDone` to what the server answered.
/* global Sentry */
(async () => {
  const params = new URLSearchParams(location.search);
  const sends = [];
  try {
    Sentry.init({
      dsn: params.get('dsn'),
      release: 'svc-e2e@1.2.3',
      environment: 'e2e',
      // Records what the server answered to each envelope (status 0 or an error means CORS or network failure).
      transport: (options) => {
        const inner = Sentry.makeFetchTransport(options);
        return {
          ...inner,
          send: async (envelope) => {
            const types = envelope[1].map((item) => item[0].type);
            try {
              const res = await inner.send(envelope);
              sends.push({ types, status: res?.statusCode ?? null });
              return res;
            } catch (err) {
              sends.push({ types, error: String(err) });
              throw err;
            }
          },
        };
      },
    });

    /** Throws from a named function so the event has a stack trace with this file's frames. */
    function divide(a, b) {
      if (b === 0) throw new RangeError('division by zero');
      return a / b;
    }
    function checkout() {
      return divide(1, 0);
    }

    Sentry.withScope((scope) => {
      scope.setUser({ id: params.get('user') ?? '42', email: 'browser@example.com' });
      scope.setTag('feature', 'checkout');
      try {
        checkout();
      } catch (err) {
        Sentry.captureException(err);
      }
    });
    Sentry.withScope((scope) => {
      scope.setUser({ id: params.get('user') ?? '42', email: 'browser@example.com' });
      Sentry.captureMessage('svc e2e message from @sentry/browser', 'warning');
    });
    const flushed = await Sentry.close(10000);
    window.__sentryDone = { flushed, sends, version: Sentry.SDK_VERSION };
  } catch (err) {
    window.__sentryDone = { flushed: false, sends, error: String(err?.stack ?? err) };
  }
})();
