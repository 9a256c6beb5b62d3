import type { Static } from 'typebox';
import type { WindowView } from '../../silences/maintenance-windows.service.js';
import type { View } from '../common/common.presenters.js';
import { userBasic } from '../users/users.presenters.js';
import type { MaintenanceWindowEntity } from './maintenance-windows.entities.js';

export function maintenanceWindow(w: WindowView, v: View): Static<typeof MaintenanceWindowEntity> {
  return {
    id: w.id,
    integration_id: w.integrationId,
    starts_at: w.startsAt,
    ends_at: w.endsAt,
    comment: w.comment,
    created_by: w.createdBy && userBasic(w.createdBy, v),
    state: w.state,
    created_at: w.createdAt,
    updated_at: w.updatedAt,
  };
}
