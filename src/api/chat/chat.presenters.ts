import type { Static } from 'typebox';
import { CHAT_SERVICES, type ChatDelivery, type ChatIntegration } from '../../chat/chat.js';
import {
  type ChatDeliveryEntity,
  type ChatIntegrationBasicEntity,
  type ChatIntegrationEntity,
  GITLAB_ONLY_FLAGS,
} from './chat.entities.js';

export function chatIntegrationBasic(i: ChatIntegration): Static<typeof ChatIntegrationBasicEntity> {
  return {
    id: i.id,
    title: CHAT_SERVICES[i.slug].title,
    slug: i.slug,
    created_at: i.createdAt,
    updated_at: i.updatedAt,
    active: i.active,
    alert_events: i.events.alert_events,
    incident_events: i.events.incident_events,
    error_tracking_events: i.events.error_tracking_events,
    page_events: i.events.page_events,
    ...Object.fromEntries(GITLAB_ONLY_FLAGS.map((f) => [f, false])),
    comment_on_event_enabled: false,
    inherited: false,
    alert_status: i.disabledReason ? 'disabled' : i.disabledUntil ? 'temporarily_disabled' : 'executable',
    disabled_until: i.disabledReason ? null : i.disabledUntil,
    disabled_reason: i.disabledReason,
  };
}

/** The integration with its properties: only the fields its service has, never the webhook or the token. */
export function chatIntegration(i: ChatIntegration): Static<typeof ChatIntegrationEntity> {
  const def = CHAT_SERVICES[i.slug];
  const p = i.properties;
  return {
    ...chatIntegrationBasic(i),
    properties: {
      ...(def.userAndChannel && { username: p.username, channel: p.channel }),
      ...(def.room && { room: p.room, thread: p.thread }),
      notify_only_default_branch: p.notifyOnlyDefaultBranch,
      branches_to_be_notified: p.branchesToBeNotified,
    },
  };
}

export function chatDelivery(d: ChatDelivery): Static<typeof ChatDeliveryEntity> {
  return {
    id: d.id,
    event: d.event,
    action: d.action,
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
