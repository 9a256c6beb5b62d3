import type { Static } from 'typebox';
import type { Silencer } from '../../silences/maintenance-windows.js';
import type { SilenceView } from '../../silences/silences.service.js';
import type { AlertEntity } from '../alerts/alerts.entities.js';
import type { View } from '../common/common.presenters.js';
import { userBasic } from '../users/users.presenters.js';
import type { SilenceEntity } from './silences.entities.js';

export function silence(s: SilenceView, v: View): Static<typeof SilenceEntity> {
  return {
    id: s.id,
    matchers: s.matchers.map((m) => ({
      name: m.name,
      value: m.value,
      isRegex: m.isRegex,
      isEqual: m.isEqual,
    })),
    starts_at: s.startsAt,
    ends_at: s.endsAt,
    comment: s.comment,
    created_by: s.createdBy && userBasic(s.createdBy, v),
    state: s.state,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  };
}

/** An alert's `silenced_by`: a silence as its id (the shape it had first), a maintenance window as an object. */
export function silencedBy(list: readonly Silencer[] | undefined): Static<typeof AlertEntity>['silenced_by'] {
  return (list ?? []).map((s) =>
    s.kind === 'silence'
      ? s.id
      : { type: 'maintenance_window' as const, id: s.id, integration_id: s.integrationId, ends_at: s.endsAt },
  );
}
