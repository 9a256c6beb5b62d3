import type { Static } from 'typebox';
import type {
  ErrorRule,
  HookDelivery,
  NotificationEmail,
  ProjectHook,
} from '../../notifications/notifications.js';
import type {
  ErrorNotificationRuleEntity,
  HookDeliveryEntity,
  NotificationEmailEntity,
  ProjectHookEntity,
} from './notifications.entities.js';

export function projectHook(h: ProjectHook): Static<typeof ProjectHookEntity> {
  return {
    id: h.id,
    url: h.url,
    name: h.name,
    description: h.description,
    project_id: h.projectId,
    ...h.events,
    push_events_branch_filter: h.pushEventsBranchFilter,
    branch_filter_strategy: h.branchFilterStrategy,
    repository_update_events: false,
    confidential_note_events: h.confidentialNoteEvents,
    alert_events: h.alertEvents,
    error_tracking_events: h.errorTrackingEvents,
    enable_ssl_verification: h.enableSslVerification,
    alert_status: h.disabledReason ? 'disabled' : h.disabledUntil ? 'temporarily_disabled' : 'executable',
    disabled_until: h.disabledReason ? null : h.disabledUntil,
    disabled_reason: h.disabledReason,
    created_at: h.createdAt,
  };
}

export function hookDelivery(d: HookDelivery): Static<typeof HookDeliveryEntity> {
  return {
    id: d.id,
    trigger: `${d.objectKind}_${d.eventType}`,
    object_kind: d.objectKind,
    event_type: d.eventType,
    status: d.status,
    response_status: d.responseStatus,
    execution_duration: d.durationMs === null ? null : d.durationMs / 1000,
    error: d.error,
    attempts: d.attempts,
    request_data: d.payload,
    created_at: d.createdAt,
    finished_at: d.finishedAt,
  };
}

export function errorNotificationRule(r: ErrorRule): Static<typeof ErrorNotificationRuleEntity> {
  return {
    id: r.id,
    project_id: r.projectId,
    trigger: r.trigger,
    threshold_count: r.thresholdCount,
    threshold_minutes: r.thresholdMinutes,
    recipient_ids: [...r.recipientIds],
    webhook: r.webhook,
    action_interval_minutes: r.actionIntervalMinutes,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}

export function notificationEmail(e: NotificationEmail): Static<typeof NotificationEmailEntity> {
  return {
    id: e.id,
    project_id: e.projectId,
    user_id: e.userId,
    recipient: e.recipient,
    subject: e.subject,
    status: e.status,
    reason: e.reason,
    attempts: e.attempts,
    created_at: e.createdAt,
    sent_at: e.sentAt,
  };
}
