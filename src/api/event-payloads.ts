import type { Alert } from '../alerts/alerts.js';
import type { TrackedError } from '../error-tracking/error-tracking.js';
import type { PayloadPresenter } from '../notifications/notifications.service.js';
import { alert, trackedError } from './v4/presenters.js';

/** Webhook payload objects as the v4 API shows them (an alert as `GET .../alerts/:iid`, an error as the errors API). */
export function eventPresenter(externalUrl: string): PayloadPresenter {
  return {
    alert: (a: Alert) => alert(a, { externalUrl, viewer: null }),
    error: (e: TrackedError) => trackedError(e, { externalUrl }),
  };
}
