// The browser app of the sentry-cli test: @sentry/browser and the checkout of app.js, bundled and minified by
// Vite in the test. `window.reportCheckout(dsn, release)` runs the checkout, reports its error through the SDK
// (whose event carries the debug IDs `sentry-cli sourcemaps inject` put in the bundle) and flushes.
import { captureException, flush, init } from '@sentry/browser';
import { checkout } from './app.js';

window.reportCheckout = async (dsn, release) => {
  init({ dsn, release, defaultIntegrations: false });
  try {
    checkout({ items: [{ price: 60 }, { price: 70 }] });
  } catch (err) {
    captureException(err);
  }
  return flush(10_000);
};
