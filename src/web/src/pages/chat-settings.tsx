import { type FormEvent, useEffect, useId, useState } from 'react';
import type { Static } from 'typebox';
import type {
  ChatDeliveryEntity,
  ChatIntegrationBasicEntity,
  ChatIntegrationEntity,
} from '../../../api/chat/chat.entities.js';
import { ApiError, describeError, getJson, sendJson } from '../api';
import { ErrorNotice, ResourceView, SuccessNotice, TableScroll, Timestamp } from '../components';
import { FieldError, fieldError, invalidProps } from '../form-fields';
import type { Project } from '../types';
import { useAction } from '../use-action';
import { useResource } from '../use-resource';

type ChatIntegration = Static<typeof ChatIntegrationEntity>;
type ChatIntegrationBasic = Static<typeof ChatIntegrationBasicEntity>;
type ChatDelivery = Static<typeof ChatDeliveryEntity>;

/** The chat services, as GitLab names their integrations, and what each takes besides its event flags. */
const SERVICES = [
  { slug: 'slack', name: 'Slack', secret: 'webhook', userAndChannel: true },
  { slug: 'mattermost', name: 'Mattermost', secret: 'webhook', userAndChannel: true },
  { slug: 'microsoft-teams', name: 'Microsoft Teams', secret: 'webhook', userAndChannel: false },
  { slug: 'discord', name: 'Discord', secret: 'webhook', userAndChannel: false },
  { slug: 'telegram', name: 'Telegram', secret: 'token', userAndChannel: false },
  { slug: 'hangouts-chat', name: 'Google Chat', secret: 'webhook', userAndChannel: false },
  { slug: 'webex-teams', name: 'Webex Teams', secret: 'webhook', userAndChannel: false },
] as const;
type Service = (typeof SERVICES)[number];

const FLAGS = [
  ['alert_events', 'Alert events'],
  ['incident_events', 'Incident events'],
  ['error_tracking_events', 'Error tracking events'],
  ['page_events', 'Escalation pages (who is paged)'],
] as const;
type Flag = (typeof FLAGS)[number][0];

/**
 * Settings > Chat integrations: pick a service, fill its fields (the webhook or bot token is write-only: left
 * blank, it stays as it is), choose the events, send a test message, remove it; and its recent messages.
 */
export function ChatSettings({ project }: { readonly project: Project }) {
  const base = `/api/v4/projects/${project.id}/integrations`;
  const [refresh, setRefresh] = useState(0);
  const active = useResource<ChatIntegrationBasic[]>(base, refresh);
  const [slug, setSlug] = useState<Service['slug']>('slack');
  const headingId = useId();
  const serviceId = useId();
  return (
    <section className="settings-section" aria-labelledby={headingId}>
      <h3 id={headingId}>Chat integrations</h3>
      <p className="muted">
        Alerts, incidents, errors and escalation pages as messages in a chat channel, in each service's own
        format.
      </p>
      <ResourceView resource={active}>
        {(list) =>
          list.length === 0 ? (
            <p className="muted">No active chat integrations.</p>
          ) : (
            <ul aria-label="Active chat integrations">
              {list.map((i) => (
                <li key={i.slug}>
                  {i.title} <span className="badge">{i.alert_status}</span>{' '}
                  <span className="muted">
                    {FLAGS.filter(([f]) => i[f])
                      .map(([, label]) => label.toLowerCase())
                      .join(', ') || 'no events'}
                  </span>
                </li>
              ))}
            </ul>
          )
        }
      </ResourceView>
      <div className="field narrow-field">
        <label htmlFor={serviceId}>Service</label>
        <select id={serviceId} value={slug} onChange={(e) => setSlug(e.target.value as Service['slug'])}>
          {SERVICES.map((s) => (
            <option key={s.slug} value={s.slug}>
              {s.name}
            </option>
          ))}
        </select>
      </div>
      <ChatForm
        key={slug}
        path={`${base}/${slug}`}
        refresh={refresh}
        service={SERVICES.find((s) => s.slug === slug)!}
        onChanged={() => setRefresh((n) => n + 1)}
      />
    </section>
  );
}

function ChatForm({
  path,
  refresh,
  service,
  onChanged,
}: {
  readonly path: string;
  readonly refresh: number;
  readonly service: Service;
  readonly onChanged: () => void;
}) {
  // The integration as set up (null: not yet), or why it could not be read.
  const [current, setCurrent] = useState<ChatIntegration | null | undefined>(undefined);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [secret, setSecret] = useState('');
  const [username, setUsername] = useState('');
  const [channel, setChannel] = useState('');
  const [room, setRoom] = useState('');
  const [activeFlag, setActiveFlag] = useState(true);
  const [flags, setFlags] = useState<Record<Flag, boolean>>({
    alert_events: true,
    incident_events: true,
    error_tracking_events: true,
    page_events: true,
  });
  const action = useAction();
  const ids = {
    secret: useId(),
    username: useId(),
    channel: useId(),
    room: useId(),
    active: useId(),
    alert_events: useId(),
    incident_events: useId(),
    error_tracking_events: useId(),
    page_events: useId(),
  };
  // The API names the refused field (`{"message": {"webhook": ["is blocked: …"]}}`): its sentence goes under it.
  const errorIds = { secret: useId(), room: useId(), username: useId(), channel: useId() };
  const refused = {
    secret: fieldError(action.fields, service.secret),
    room: fieldError(action.fields, 'room'),
    username: fieldError(action.fields, 'username'),
    channel: fieldError(action.fields, 'channel'),
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: `refresh` only triggers a reload (after a save, a test or a removal).
  useEffect(() => {
    let live = true;
    getJson<ChatIntegration>(path).then(
      (i) => {
        if (!live) return;
        setCurrent(i);
        setUsername(i.properties.username ?? '');
        setChannel(i.properties.channel ?? '');
        setRoom(i.properties.room ?? '');
        setActiveFlag(i.active);
        setFlags({
          alert_events: i.alert_events,
          incident_events: i.incident_events,
          error_tracking_events: i.error_tracking_events,
          page_events: i.page_events,
        });
      },
      (err: unknown) => {
        if (!live) return;
        if (err instanceof ApiError && err.status === 404) setCurrent(null);
        else setLoadError(describeError(err));
      },
    );
    return () => {
      live = false;
    };
  }, [path, refresh]);
  if (loadError !== null) return <ErrorNotice message={loadError} />;
  if (current === undefined) return <p className="muted">Loading…</p>;
  const telegram = service.secret === 'token';
  const save = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    await action.run(async () => {
      await sendJson('PUT', path, {
        ...(secret && { [service.secret]: secret }),
        ...(service.userAndChannel && { username, channel }),
        ...(telegram && { room }),
        active: activeFlag,
        ...flags,
      });
      setSecret('');
      onChanged();
      return `${service.name} saved.`;
    });
  };
  return (
    <form
      className="card form-card"
      aria-label={`${service.name} integration`}
      onSubmit={(event) => void save(event)}
    >
      {action.error !== null && <ErrorNotice message={action.error} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
      {current?.disabled_reason && <ErrorNotice message={`Disabled: ${current.disabled_reason}`} />}
      {current && !current.disabled_reason && current.alert_status === 'temporarily_disabled' && (
        <ErrorNotice
          message={`Temporarily disabled until ${current.disabled_until}: its last messages failed. Saving or a successful test enables it now.`}
        />
      )}
      <p className="muted">
        {!current ? 'Not set up yet.' : current.active ? 'Active; last changed ' : 'Not active.'}
        {current?.active && <Timestamp value={current.updated_at} />}
      </p>
      <div className="field narrow-field">
        <label htmlFor={ids.secret}>{telegram ? 'Bot token' : 'Webhook URL'}</label>
        <input
          id={ids.secret}
          type={telegram ? 'password' : 'url'}
          required={!current}
          placeholder={current ? 'unchanged (write-only)' : ''}
          value={secret}
          onChange={(e) => setSecret(e.target.value)}
          {...invalidProps(refused.secret, errorIds.secret)}
        />
        <FieldError id={errorIds.secret} error={refused.secret} />
      </div>
      {telegram && (
        <div className="field narrow-field">
          <label htmlFor={ids.room}>Channel identifier (chat ID or @channel)</label>
          <input
            id={ids.room}
            required
            value={room}
            onChange={(e) => setRoom(e.target.value)}
            {...invalidProps(refused.room, errorIds.room)}
          />
          <FieldError id={errorIds.room} error={refused.room} />
        </div>
      )}
      {service.userAndChannel && (
        <>
          <div className="field narrow-field">
            <label htmlFor={ids.username}>Username</label>
            <input
              id={ids.username}
              value={username}
              onChange={(e) => setUsername(e.target.value)}
              {...invalidProps(refused.username, errorIds.username)}
            />
            <FieldError id={errorIds.username} error={refused.username} />
          </div>
          <div className="field narrow-field">
            <label htmlFor={ids.channel}>Channel</label>
            <input
              id={ids.channel}
              value={channel}
              onChange={(e) => setChannel(e.target.value)}
              {...invalidProps(refused.channel, errorIds.channel)}
            />
            <FieldError id={errorIds.channel} error={refused.channel} />
          </div>
        </>
      )}
      <div className="checkbox">
        <input
          id={ids.active}
          type="checkbox"
          checked={activeFlag}
          onChange={(e) => setActiveFlag(e.target.checked)}
        />
        <label htmlFor={ids.active}>Active</label>
      </div>
      {FLAGS.map(([flag, label]) => (
        <div className="checkbox" key={flag}>
          <input
            id={ids[flag]}
            type="checkbox"
            checked={flags[flag]}
            onChange={(e) => setFlags({ ...flags, [flag]: e.target.checked })}
          />
          <label htmlFor={ids[flag]}>{label}</label>
        </div>
      ))}
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={action.busy}>
          {action.busy ? 'Saving…' : 'Save'}
        </button>
        {current?.active && (
          <>
            <button
              type="button"
              className="button"
              disabled={action.busy}
              onClick={() =>
                void action.run(async () => {
                  await sendJson('POST', `${path}/test`);
                  onChanged();
                  return 'Test message sent.';
                })
              }
            >
              Send test message
            </button>
            <button
              type="button"
              className="button button-danger"
              disabled={action.busy}
              onClick={() =>
                void action.run(async () => {
                  await sendJson('DELETE', path);
                  onChanged();
                  return `${service.name} removed.`;
                })
              }
            >
              Remove
            </button>
          </>
        )}
      </div>
      {current && (
        <Deliveries path={`${path}/deliveries?per_page=20`} name={service.name} refresh={refresh} />
      )}
    </form>
  );
}

function Deliveries({
  path,
  name,
  refresh,
}: {
  readonly path: string;
  readonly name: string;
  readonly refresh: number;
}) {
  const deliveries = useResource<ChatDelivery[]>(path, refresh);
  return (
    <ResourceView resource={deliveries}>
      {(list) =>
        list.length === 0 ? (
          <p className="muted">No messages yet.</p>
        ) : (
          <TableScroll label={`Recent messages to ${name}`}>
            <table className="table" aria-label={`Recent messages to ${name}`}>
              <thead>
                <tr>
                  <th>Event</th>
                  <th>Status</th>
                  <th>Response</th>
                  <th>Attempts</th>
                  <th>Error</th>
                  <th>Time</th>
                </tr>
              </thead>
              <tbody>
                {list.map((d) => (
                  <tr key={d.id}>
                    <td>{`${d.event}_${d.action}`}</td>
                    <td>{d.status}</td>
                    <td>{d.response_status ?? '–'}</td>
                    <td>{d.attempts}</td>
                    <td>{d.error ?? ''}</td>
                    <td>
                      <Timestamp value={d.created_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )
      }
    </ResourceView>
  );
}
