import type { Alert } from '../alerts/alerts.js';
import type { TrackedError } from '../error-tracking/error-tracking.js';
import type { PayloadPresenter } from '../notifications/notifications.service.js';
import { alert, trackedError } from './v4/presenters.js';

/** Webhook payload objects as the v4 API shows them (an alert as `GET .../alerts/:iid`, an error as the errors API). */
export function eventPresenter(externalUrl: string): PayloadPresenter {
  return {
    // Alert events are sent only for alerts no silence holds (checked at send time): none silences them.
    alert: (a: Alert) => ({ ...alert(a, { externalUrl, viewer: null }), silenced_by: [] }),
    error: (e: TrackedError) => trackedError(e, { externalUrl }),
  };
}
