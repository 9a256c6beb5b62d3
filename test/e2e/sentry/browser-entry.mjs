// The parts of @sentry/browser the test page uses, bundled by the test into one IIFE file (global `Sentry`):
// the npm package ships only ES modules and CommonJS, no browser bundle.
export {
  captureException,
  captureMessage,
  close,
  init,
  makeFetchTransport,
  SDK_VERSION,
  withScope,
} from '@sentry/browser';
